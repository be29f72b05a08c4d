#include "bus/power_profiles.h"

#include <cstring>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "bus/contract.h"
#include "bus/handles.h"

namespace rocmtune::bus {
namespace {

std::string Errno(int r) { return std::strerror(-r); }

// A call that never starts the service, with the probe's timeout.
int Call(sd_bus* bus, const char* dest, const char* path, const char* iface, const char* member, sd_bus_message** reply,
         BusError& error, const char* sig = nullptr, const char* arg = nullptr) {
  sd_bus_message* raw = nullptr;
  if (int r = sd_bus_message_new_method_call(bus, &raw, dest, path, iface, member); r < 0) return r;
  MessagePtr msg(raw);
  if (int r = sd_bus_message_set_auto_start(msg.get(), 0); r < 0) return r;
  if (sig)
    if (int r = sd_bus_message_append(msg.get(), sig, arg); r < 0) return r;
  return sd_bus_call(bus, msg.get(), kProbeTimeoutUsec, error.get(), reply);
}

Result<bool> HasOwner(sd_bus* bus, const char* name) {
  BusError error;
  sd_bus_message* raw = nullptr;
  int r = Call(bus, kBusDaemon.name, kBusDaemon.path, kBusDaemon.interface, "NameHasOwner", &raw, error, "s", name);
  MessagePtr reply(raw);
  if (r < 0) return Fail(ErrorCode::kIo, fmt::format("NameHasOwner: {}", error.message() ? error.message() : Errno(r)));
  int owned = 0;
  if (int rr = sd_bus_message_read(reply.get(), "b", &owned); rr < 0) return Fail(ErrorCode::kIo, Errno(rr));
  return owned != 0;
}

// aa{sv}: the string member `key` of each dictionary, and (ActionsInfo) the Enabled of the
// dictionary whose Name is amdgpu_dpm.
int ReadDictArray(sd_bus_message* m, const char* key, std::vector<std::string>& values,
                  std::optional<bool>* amdgpu_dpm_enabled) {
  int r = sd_bus_message_enter_container(m, 'a', "a{sv}");
  if (r < 0) return r;
  while ((r = sd_bus_message_enter_container(m, 'a', "{sv}")) > 0) {
    std::string value;
    std::optional<bool> enabled;
    while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
      const char* k = nullptr;
      if ((r = sd_bus_message_read(m, "s", &k)) < 0) return r;
      const char* contents = nullptr;
      if ((r = sd_bus_message_peek_type(m, nullptr, &contents)) < 0) return r;
      if (std::string_view(k) == key && contents && std::string_view(contents) == "s") {
        const char* s = nullptr;
        if ((r = sd_bus_message_read(m, "v", "s", &s)) < 0) return r;
        value = s;
      } else if (std::string_view(k) == "Enabled" && contents && std::string_view(contents) == "b") {
        int b = 0;
        if ((r = sd_bus_message_read(m, "v", "b", &b)) < 0) return r;
        enabled = b != 0;
      } else if ((r = sd_bus_message_skip(m, "v")) < 0) {
        return r;
      }
      if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    }
    if (r < 0) return r;
    if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    if (!value.empty()) values.push_back(value);
    if (amdgpu_dpm_enabled && value == "amdgpu_dpm") *amdgpu_dpm_enabled = enabled;
  }
  if (r < 0) return r;
  return sd_bus_message_exit_container(m);
}

// GetAll's a{sv}: the properties PowerProfilesBus holds; the others are skipped.
int ReadProperties(sd_bus_message* m, detect::PowerProfilesBus& out) {
  int r = sd_bus_message_enter_container(m, 'a', "{sv}");
  if (r < 0) return r;
  while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
    const char* name = nullptr;
    if ((r = sd_bus_message_read(m, "s", &name)) < 0) return r;
    const char* contents = nullptr;
    if ((r = sd_bus_message_peek_type(m, nullptr, &contents)) < 0) return r;
    std::string_view n = name, sig = contents ? contents : "";
    const char* s = nullptr;
    if (n == "Version" && sig == "s") {
      if ((r = sd_bus_message_read(m, "v", "s", &s)) < 0) return r;
      out.version = s;
    } else if (n == "ActiveProfile" && sig == "s") {
      if ((r = sd_bus_message_read(m, "v", "s", &s)) < 0) return r;
      out.active_profile = s;
    } else if (n == "Actions" && sig == "as") {
      char** strv = nullptr;
      if ((r = sd_bus_message_enter_container(m, 'v', "as")) < 0) return r;
      if ((r = sd_bus_message_read_strv(m, &strv)) < 0) return r;
      for (char** p = strv; p && *p; ++p) {
        out.actions.emplace_back(*p);
        free(*p);  // NOLINT(cppcoreguidelines-no-malloc): sd-bus hands over a malloc'ed strv
      }
      free(strv);  // NOLINT(cppcoreguidelines-no-malloc)
      if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    } else if ((n == "ActionsInfo" || n == "Profiles") && sig == "aa{sv}") {
      if ((r = sd_bus_message_enter_container(m, 'v', "aa{sv}")) < 0) return r;
      std::vector<std::string> names;
      if (n == "ActionsInfo") {
        out.set_action_enabled = true;
        r = ReadDictArray(m, "Name", names, &out.amdgpu_dpm_enabled);
      } else {
        r = ReadDictArray(m, "Driver", out.drivers, nullptr);
      }
      if (r < 0) return r;
      if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    } else if ((r = sd_bus_message_skip(m, "v")) < 0) {
      return r;
    }
    if ((r = sd_bus_message_exit_container(m)) < 0) return r;
  }
  if (r < 0) return r;
  return sd_bus_message_exit_container(m);
}

}  // namespace

detect::PowerProfilesBus ProbePowerProfiles() {
  detect::PowerProfilesBus out;
  // One connection per thread, kept: rocmtuned asks on every read (its loop) and change (its
  // worker thread), and a connection's setup (connect, auth, Hello) costs more than the calls.
  thread_local BusPtr bus;
  if (!bus || sd_bus_is_open(bus.get()) <= 0) {
    sd_bus* raw = nullptr;
    if (int r = sd_bus_open_system(&raw); r < 0) {
      bus = BusPtr();
      out.error = fmt::format("cannot connect to the system bus: {}", Errno(r));
      return out;
    }
    bus = BusPtr(raw);
  }
  for (const PeerService& s : kPowerProfilesServices) {
    auto owned = HasOwner(bus.get(), s.name);
    if (!owned) {
      out.error = owned.error().message;
      return out;
    }
    if (!*owned) continue;
    out.running = true;
    out.name = s.name;
    BusError error;
    sd_bus_message* reply_raw = nullptr;
    int r = Call(bus.get(), s.name, s.path, kPropertiesInterface, "GetAll", &reply_raw, error, "s", s.interface);
    MessagePtr reply(reply_raw);
    if (r < 0) {
      out.error = fmt::format("{} did not answer GetAll: {}", s.name, error.message() ? error.message() : Errno(r));
      return out;
    }
    if (r = ReadProperties(reply.get(), out); r < 0)
      out.error = fmt::format("{} answered GetAll with properties of unexpected types: {}", s.name, Errno(r));
    return out;
  }
  return out;
}

void RegisterPowerProfilesProbe(bool any_root) { detect::SetPowerProfilesProbe(ProbePowerProfiles, any_root); }

}  // namespace rocmtune::bus
