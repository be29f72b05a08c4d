#include "client/daemon_link.h"

#include <systemd/sd-bus.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/error_json.h"
#include "bus/contract.h"
#include "bus/handles.h"
#include "client/verbs.h"
#include "util/json_text.h"

namespace rocmtune::client {
namespace {

constexpr uint64_t kReadTimeoutUsec = 90ULL * 1000 * 1000;
constexpr uint64_t kChangeTimeoutUsec = 30ULL * 60 * 1000 * 1000;  // dracut on a slow disk

// How long root's change waits for rocmtuned to answer a Ping before it changes the machine
// through the local helper instead: one user's flood of requests must not stop root (Ansible, a
// package's maintainer script, the escape hatch).
constexpr uint64_t kRootPingTimeoutUsec = 10ULL * 1000 * 1000;
// How long root's --check waits for the call itself: a plan takes milliseconds, and nothing is
// written, so going on without the daemon after that loses nothing.
constexpr uint64_t kRootCheckTimeoutUsec = 15ULL * 1000 * 1000;

// The bus says there is no such service: not installed here, or not activatable.
bool NoDaemon(std::string_view name) { return name == bus::kErrorServiceUnknown || name == bus::kErrorNameHasNoOwner; }

// The daemon did not answer in time, or the bus would not queue the call for it: the call was
// never handled (a Ping, or a call the bus refused with LimitsExceeded).
bool NotAnswering(std::string_view name, int r) {
  return name == bus::kErrorNoReply || name == bus::kErrorTimeout || name == bus::kErrorLimitsExceeded ||
         (name.empty() && r == -ETIMEDOUT);
}

void SayFallingBack(const char* method, std::string_view why) {
  fmt::print(stderr,
             "rocmtunectl: rocmtuned did not take {} ({}): going on without it, through the local rocmtune-helper\n",
             method, why);
}

// Root's change: rocmtuned must answer a Ping within kRootPingTimeoutUsec, else root goes on
// without it. nullopt: it answered; else why not.
std::optional<std::string> RootCannotReach(sd_bus* bus) {
  bus::BusError error;
  sd_bus_message* reply_raw = nullptr;
  int r = sd_bus_call_method(bus, bus::kBusName, bus::kObjectPath, bus::kPeerInterface, "Ping", error.get(), &reply_raw,
                             "");
  bus::MessagePtr reply(reply_raw);
  if (r >= 0) return std::nullopt;
  const std::string name = error.name() ? error.name() : "";
  const std::string message = error.message() ? error.message() : std::strerror(-r);
  if (name == bus::kErrorLimitsExceeded) return fmt::format("the bus would not queue a call for it: {}", message);
  if (NotAnswering(name, r))
    return fmt::format("no answer to Ping in {} s: {}", kRootPingTimeoutUsec / 1000000, message);
  return std::nullopt;  // anything else (no daemon at all) is the call's to tell
}

}  // namespace

std::optional<BusReply> AskDaemon(const Context& ctx, const char* method, const Append& append, CallOptions options) {
  if (ctx.root_given) return std::nullopt;
  sd_bus* raw = nullptr;
  if (sd_bus_open_system(&raw) < 0) return std::nullopt;
  bus::BusPtr bus(raw);
  const bool root_change = options.change && ::geteuid() == 0;
  if (root_change) {
    (void)sd_bus_set_method_call_timeout(bus.get(), kRootPingTimeoutUsec);
    if (auto why = RootCannotReach(bus.get())) {
      SayFallingBack(method, *why);
      return std::nullopt;
    }
  }
  sd_bus_message* msg_raw = nullptr;
  if (sd_bus_message_new_method_call(bus.get(), &msg_raw, bus::kBusName, bus::kObjectPath, bus::kInterface, method) < 0)
    return std::nullopt;
  bus::MessagePtr msg(msg_raw);
  if (append) {
    if (int r = append(msg.get()); r < 0)
      return BusReply{fmt::format("cannot build the {} call: {}", method, std::strerror(-r)), bus::kErrorInvalidArgs};
  }
  (void)sd_bus_message_set_allow_interactive_authorization(msg.get(), options.interactive ? 1 : 0);
  bus::BusError error;
  sd_bus_message* reply_raw = nullptr;
  const bool root_check = root_change && options.check;
  const uint64_t timeout = root_check ? kRootCheckTimeoutUsec : options.change ? kChangeTimeoutUsec : kReadTimeoutUsec;
  int r = sd_bus_call(bus.get(), msg.get(), timeout, error.get(), &reply_raw);
  bus::MessagePtr reply(reply_raw);
  if (r < 0) {
    std::string name = error.name() ? error.name() : "";
    if (NoDaemon(name)) return std::nullopt;
    if (root_check && NotAnswering(name, r)) {  // a check writes nothing: planning it here is the same
      SayFallingBack(method, fmt::format("no answer in {} s", kRootCheckTimeoutUsec / 1000000));
      return std::nullopt;
    }
    if (root_change && name == bus::kErrorLimitsExceeded) {  // never delivered: nothing ran
      SayFallingBack(method, error.message() ? error.message() : name);
      return std::nullopt;
    }
    if (name.empty()) return BusReply{fmt::format("asking rocmtuned: {}", std::strerror(-r)), bus::kErrorFailed};
    return BusReply{error.message() ? error.message() : name, name};
  }
  const char* text = nullptr;
  if (sd_bus_message_read(reply.get(), "s", &text) < 0 || !text)
    return BusReply{fmt::format("rocmtuned's reply to {} is not a string", method), bus::kErrorFailed};
  return BusReply{text, ""};
}

int ExitForBusError(const std::string& name) { return bus::ExitFor(name); }

std::string HintForBusError(const std::string& name) { return std::string(bus::HintFor(name)); }

int BusFailed(const Context& ctx, const BusReply& reply) {
  std::string hint = HintForBusError(reply.error_name);
  PrintError(hint.empty() ? reply.text : fmt::format("{} ({})", reply.text, hint));
  if (ctx.json) {
    Error error{bus::CodeFor(reply.error_name), 0, reply.text};
    fmt::print("{}\n", JsonText(api::ErrorJson(error, hint)));
  }
  return ExitForBusError(reply.error_name);
}

}  // namespace rocmtune::client
