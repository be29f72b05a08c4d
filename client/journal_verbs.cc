// `history` and `verify`: what the journal says, as a table or the core's document.
#include <fmt/format.h>

#include "api/history.h"
#include "api/status_json.h"
#include "api/verify.h"
#include "client/exit_codes.h"
#include "client/table.h"
#include "client/verbs.h"
#include "util/json_text.h"

namespace rocmtune::client {

int RunHistory(const Context& ctx, const Args&) {
  auto system = ctx.LoadSystem();
  if (!system) return Failed(ctx, system.error(), kExitFailed);
  api::HistoryReport report = api::History(*system);
  if (ctx.json) {
    fmt::print("{}\n", JsonText(api::HistoryJson(report)));
    return kExitOk;
  }
  if (report.entries.empty()) {
    fmt::print("No transactions: rocmtune has changed nothing on {}.\n", system->root.Display(""));
    return kExitOk;
  }
  Table table({"ID", "TIME", "WHAT", "CHANGES", "STATE"});
  for (const api::HistoryEntry& e : report.entries)
    table.AddRow({e.txn->id, e.txn->time, e.what, std::to_string(e.txn->ops.size()), e.state});
  fmt::print("{}", table.Render());
  return kExitOk;
}

int RunVerify(const Context& ctx, const Args&) {
  auto system = ctx.LoadSystem();
  if (!system) return Failed(ctx, system.error(), kExitFailed);
  api::VerifyReport report = api::Verify(*system);
  if (ctx.json) {
    fmt::print("{}\n", JsonText(api::VerifyJson(report)));
  } else if (report.ok()) {
    fmt::print("Verified: everything rocmtune configured is in effect and its files are as it left them.\n");
  } else {
    Table table({"KIND", "WHAT", "DETAIL"});
    for (const auto& d : report.differences) table.AddRow({d.kind, d.subject, d.message});
    fmt::print("{}", table.Render());
  }
  return report.ok() ? kExitOk : kExitVerifyDiffers;
}

}  // namespace rocmtune::client
