#include "daemon/fault_methods.h"

#include <cstring>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/faults.h"
#include "daemon/bus_errors.h"
#include "daemon/log.h"
#include "daemon/read_methods.h"
#include "util/json_text.h"

namespace rocmtune::daemon {

int FaultsMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  int32_t boot = 0;
  uint64_t since = 0;
  if (int r = sd_bus_message_read(call, "it", &boot, &since); r < 0) return r;
  if (boot > 1) return SetError(ret, Error{ErrorCode::kInvalidArgument, 0, "boot: 0, -N, or 1 for every boot"});
  const char* sender_raw = sd_bus_message_get_sender(call);
  const std::string sender = sender_raw ? sender_raw : "";
  std::shared_ptr<sd_bus_message> held(sd_bus_message_ref(call), sd_bus_message_unref);
  auto asked = self.callers().Resolve(sender, [held, &self, boot, since](Result<CallerCreds> creds) {
    if (!creds) {
      (void)ReplyFailure(held.get(), creds.error());
      return;
    }
    api::FaultsOptions options;
    if (boot <= 0) options.boot = boot;
    if (since > 0) options.since_usec = since;
    options.read_log = self.read_log();
    auto report = api::Faults(self.root(), options);
    if (!report) {
      (void)ReplyFailure(held.get(), report.error());
      return;
    }
    const auto uid = static_cast<uint32_t>(creds->uid);
    api::KeepCallersFaults(*report, uid, api::SeesEveryFault(self.root(), uid));
    if (int r = ReplyText(held.get(), JsonText(api::FaultsJson(*report))); r < 0)
      LogDropped(fmt::format("the reply to {}", InfoOf(held.get()).Text()), std::strerror(-r));
    self.NoteFaults();
  });
  if (!asked) return SetError(ret, asked.error());
  return 1;  // answered once the bus said who calls
}

}  // namespace rocmtune::daemon
