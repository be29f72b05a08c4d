#include "daemon/polkit.h"

#include <cstring>

#include <fmt/format.h>

#include "bus/contract.h"

namespace rocmtune::daemon {
namespace {

constexpr uint32_t kAllowUserInteraction = 1;

Result<void> Check(int r, std::string_view what) {
  if (r >= 0) return {};
  return Fail(ErrorCode::kIo, fmt::format("asking polkit: {}: {}", what, std::strerror(-r)), -r);
}

}  // namespace

Result<bus::MessagePtr> NewCheckAuthorization(sd_bus* bus, const Caller& caller, const std::string& action,
                                              const std::map<std::string, std::string>& details,
                                              const std::string& cancellation_id) {
  sd_bus_message* call_raw = nullptr;
  if (auto ok =
          Check(sd_bus_message_new_method_call(bus, &call_raw, bus::kPolkitAuthority.name, bus::kPolkitAuthority.path,
                                               bus::kPolkitAuthority.interface, "CheckAuthorization"),
                "building the call");
      !ok)
    return tl::unexpected(ok.error());
  bus::MessagePtr call(call_raw);
  int r = sd_bus_message_append(call.get(), "(sa{sv})s", "system-bus-name", 1, "name", "s", caller.sender.c_str(),
                                action.c_str());
  if (auto ok = Check(r, "building the subject"); !ok) return tl::unexpected(ok.error());
  if (auto ok = Check(sd_bus_message_open_container(call.get(), 'a', "{ss}"), "details"); !ok)
    return tl::unexpected(ok.error());
  for (const auto& [key, value] : details)
    if (auto ok = Check(sd_bus_message_append(call.get(), "{ss}", key.c_str(), value.c_str()), "details"); !ok)
      return tl::unexpected(ok.error());
  if (auto ok = Check(sd_bus_message_close_container(call.get()), "details"); !ok) return tl::unexpected(ok.error());
  r = sd_bus_message_append(call.get(), "us", caller.interactive ? kAllowUserInteraction : 0U, cancellation_id.c_str());
  if (auto ok = Check(r, "flags"); !ok) return tl::unexpected(ok.error());
  if (caller.interactive) (void)sd_bus_message_set_allow_interactive_authorization(call.get(), 1);
  return call;
}

Result<AuthorizationAnswer> ReadAuthorization(sd_bus_message* reply, const Caller& caller, const std::string& action) {
  if (const sd_bus_error* e = sd_bus_message_get_error(reply); e != nullptr)
    return Fail(ErrorCode::kIo, fmt::format("asking polkit: {}", e->message ? e->message : e->name),
                sd_bus_error_get_errno(e));
  int authorized = 0, challenge = 0;
  if (auto ok = Check(sd_bus_message_enter_container(reply, 'r', "bba{ss}"), "reading the answer"); !ok)
    return tl::unexpected(ok.error());
  if (auto ok = Check(sd_bus_message_read(reply, "bb", &authorized, &challenge), "reading the answer"); !ok)
    return tl::unexpected(ok.error());
  AuthorizationAnswer answer{authorized != 0, challenge != 0, ""};
  // A challenge the caller allowed to be interactive that still failed: no authentication agent
  // answered for that user (none runs, as in a Cockpit session without administrative access).
  if (!answer.authorized)
    answer.why = !answer.challenge ? fmt::format("polkit does not allow {} for uid {}", action, caller.uid)
                 : caller.interactive
                     ? fmt::format(
                           "{} needs an administrator's authentication, and no polkit agent answered for "
                           "uid {} (use sudo, or Cockpit's administrative access)",
                           action, caller.uid)
                     : fmt::format("{} needs authentication; allow interactive authorization (or use sudo)", action);
  return answer;
}

}  // namespace rocmtune::daemon
