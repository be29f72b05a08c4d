#include "client/daemon_link.h"

#include <systemd/sd-bus.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include <fmt/format.h>

#include "api/error_json.h"
#include "client/exit_codes.h"
#include "client/verbs.h"
#include "daemon/sd_handles.h"
#include "util/json_text.h"

namespace rocmtune::client {
namespace {

constexpr const char* kService = "org.rocmtune1";
constexpr const char* kPath = "/org/rocmtune1";
constexpr const char* kInterface = "org.rocmtune1.Manager";
constexpr uint64_t kReadTimeoutUsec = 90ULL * 1000 * 1000;
constexpr uint64_t kChangeTimeoutUsec = 30ULL * 60 * 1000 * 1000;  // dracut on a slow disk

// The bus says there is no such service: not installed here, or not activatable.
bool NoDaemon(std::string_view name) {
  return name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner";
}

ErrorCode CodeFor(std::string_view name) {
  if (name == "org.rocmtune1.Error.InvalidArgument") return ErrorCode::kInvalidArgument;
  if (name == "org.rocmtune1.Error.NotFound") return ErrorCode::kNotFound;
  if (name == "org.rocmtune1.Error.NotSupported" || name == "org.rocmtune1.Error.Refused")
    return ErrorCode::kUnsupported;
  if (name == "org.freedesktop.DBus.Error.AccessDenied" ||
      name == "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired")
    return ErrorCode::kNotAuthorized;
  return ErrorCode::kIo;
}

}  // namespace

std::optional<BusReply> AskDaemon(const Context& ctx, const char* method, const Append& append, CallOptions options) {
  if (ctx.root_given) return std::nullopt;
  sd_bus* raw = nullptr;
  if (sd_bus_open_system(&raw) < 0) return std::nullopt;
  daemon::BusPtr bus(raw);
  sd_bus_message* msg_raw = nullptr;
  if (sd_bus_message_new_method_call(bus.get(), &msg_raw, kService, kPath, kInterface, method) < 0) return std::nullopt;
  daemon::MessagePtr msg(msg_raw);
  if (append) {
    if (int r = append(msg.get()); r < 0)
      return BusReply{fmt::format("cannot build the {} call: {}", method, std::strerror(-r)),
                      "org.freedesktop.DBus.Error.InvalidArgs"};
  }
  (void)sd_bus_message_set_allow_interactive_authorization(msg.get(), options.interactive ? 1 : 0);
  daemon::BusError error;
  sd_bus_message* reply_raw = nullptr;
  int r = sd_bus_call(bus.get(), msg.get(), options.change ? kChangeTimeoutUsec : kReadTimeoutUsec, error.get(),
                      &reply_raw);
  daemon::MessagePtr reply(reply_raw);
  if (r < 0) {
    std::string name = error.name() ? error.name() : "";
    if (NoDaemon(name)) return std::nullopt;
    if (name.empty())
      return BusReply{fmt::format("asking rocmtuned: {}", std::strerror(-r)), "org.rocmtune1.Error.Failed"};
    return BusReply{error.message() ? error.message() : name, name};
  }
  const char* text = nullptr;
  if (sd_bus_message_read(reply.get(), "s", &text) < 0 || !text)
    return BusReply{fmt::format("rocmtuned's reply to {} is not a string", method), "org.rocmtune1.Error.Failed"};
  return BusReply{text, ""};
}

int ExitForBusError(const std::string& name) {
  if (name == "org.rocmtune1.Error.Refused" || name == "org.rocmtune1.Error.NotSupported") return kExitRefused;
  if (name == "org.rocmtune1.Error.Drift") return kExitDrift;
  if (name == "org.rocmtune1.Error.InvalidArgument" || name == "org.rocmtune1.Error.NotFound") return kExitUsage;
  if (name == "org.freedesktop.DBus.Error.AccessDenied" ||
      name == "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired")
    return kExitNotAuthorized;
  return kExitFailed;
}

std::string HintForBusError(const std::string& name) {
  if (name == "org.freedesktop.DBus.Error.AccessDenied")
    return "not authorized: run with sudo or as an admin in an active session";
  if (name == "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired")
    return "polkit wants an administrator's password and nothing could ask for it (--no-ask-password, no "
           "terminal, or no polkit agent for this session): run with sudo";
  if (name == "org.rocmtune1.Error.Busy") return "another change is running: try again when it is done";
  if (name == "org.freedesktop.DBus.Error.Timeout" || name == "org.freedesktop.DBus.Error.NoReply")
    return "rocmtuned is busy or stuck: see `journalctl -u rocmtuned`";
  // The core's own errors (InvalidArgument, NotFound, ...) say what to do in their message, as
  // on the local path.
  if (name.starts_with("org.rocmtune1.Error.")) return "";
  return "see `journalctl -u rocmtuned`";
}

int BusFailed(const Context& ctx, const BusReply& reply) {
  std::string hint = HintForBusError(reply.error_name);
  PrintError(hint.empty() ? reply.text : fmt::format("{} ({})", reply.text, hint));
  if (ctx.json) {
    Error error{CodeFor(reply.error_name), 0, reply.text};
    fmt::print("{}\n", JsonText(api::ErrorJson(error, hint)));
  }
  return ExitForBusError(reply.error_name);
}

}  // namespace rocmtune::client
