#include "daemon/polkit.h"

#include <fmt/format.h>

#include "daemon/sd_handles.h"

namespace rocmtune::daemon {
namespace {

constexpr uint32_t kAllowUserInteraction = 1;
// polkit's agent may wait for a person; without interaction the answer comes at once.
constexpr uint64_t kInteractiveTimeoutUsec = 300ULL * 1000 * 1000;
constexpr uint64_t kTimeoutUsec = 25ULL * 1000 * 1000;

Result<void> Check(int r, std::string_view what) {
  if (r >= 0) return {};
  return Fail(ErrorCode::kIo, fmt::format("asking polkit: {}: {}", what, strerror(-r)), -r);
}

}  // namespace

Result<AuthorizationAnswer> CheckAuthorization(const Caller& caller, const std::string& action,
                                               const std::map<std::string, std::string>& details) {
  if (caller.uid == 0) return AuthorizationAnswer{true, false, ""};
  sd_bus* bus_raw = nullptr;
  if (auto ok = Check(sd_bus_open_system(&bus_raw), "connecting to the system bus"); !ok)
    return tl::unexpected(ok.error());
  BusPtr bus(bus_raw);
  sd_bus_message* call_raw = nullptr;
  if (auto ok = Check(sd_bus_message_new_method_call(bus.get(), &call_raw, "org.freedesktop.PolicyKit1",
                                                     "/org/freedesktop/PolicyKit1/Authority",
                                                     "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization"),
                      "building the call");
      !ok)
    return tl::unexpected(ok.error());
  MessagePtr call(call_raw);
  int r = sd_bus_message_append(call.get(), "(sa{sv})s", "system-bus-name", 1, "name", "s", caller.sender.c_str(),
                                action.c_str());
  if (auto ok = Check(r, "building the subject"); !ok) return tl::unexpected(ok.error());
  if (auto ok = Check(sd_bus_message_open_container(call.get(), 'a', "{ss}"), "details"); !ok)
    return tl::unexpected(ok.error());
  for (const auto& [key, value] : details)
    if (auto ok = Check(sd_bus_message_append(call.get(), "{ss}", key.c_str(), value.c_str()), "details"); !ok)
      return tl::unexpected(ok.error());
  if (auto ok = Check(sd_bus_message_close_container(call.get()), "details"); !ok) return tl::unexpected(ok.error());
  r = sd_bus_message_append(call.get(), "us", caller.interactive ? kAllowUserInteraction : 0U, "");
  if (auto ok = Check(r, "flags"); !ok) return tl::unexpected(ok.error());
  if (caller.interactive) (void)sd_bus_message_set_allow_interactive_authorization(call.get(), 1);

  BusError error;
  sd_bus_message* reply_raw = nullptr;
  r = sd_bus_call(bus.get(), call.get(), caller.interactive ? kInteractiveTimeoutUsec : kTimeoutUsec, error.get(),
                  &reply_raw);
  if (r < 0)
    return Fail(ErrorCode::kIo, fmt::format("asking polkit: {}", error.message() ? error.message() : strerror(-r)), -r);
  MessagePtr reply(reply_raw);
  int authorized = 0, challenge = 0;
  if (auto ok = Check(sd_bus_message_enter_container(reply.get(), 'r', "bba{ss}"), "reading the answer"); !ok)
    return tl::unexpected(ok.error());
  if (auto ok = Check(sd_bus_message_read(reply.get(), "bb", &authorized, &challenge), "reading the answer"); !ok)
    return tl::unexpected(ok.error());
  AuthorizationAnswer answer{authorized != 0, challenge != 0, ""};
  if (!answer.authorized)
    answer.why = answer.challenge ? fmt::format(
                                        "{} needs authentication; allow interactive authorization (or "
                                        "use sudo)",
                                        action)
                                  : fmt::format("polkit does not allow {} for uid {}", action, caller.uid);
  return answer;
}

}  // namespace rocmtune::daemon
