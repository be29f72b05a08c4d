// reapply [CARD]: the core writes back the runtime attributes rocmtune keeps set that a reboot,
// GPU reset or resume undid (core/api/reapply.h); this shows the plan and the outcome, or prints
// the result document. rocmtune-apply@.service runs it as `rocmtunectl --root / reapply -- cardN`.
#include <systemd/sd-bus.h>

#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/reapply.h"
#include "api/status_json.h"
#include "client/exit_codes.h"
#include "client/local_writer.h"
#include "client/verbs.h"
#include "util/json_text.h"

namespace rocmtune::client {
namespace {

void PrintMessages(std::string_view label, const std::vector<plan::Message>& messages) {
  for (const plan::Message& m : messages) fmt::print("{}: {}\n", label, m.message);
}

// A reapply plan holds attribute writes only (no files, no regenerators).
void PrintPlan(const api::ChangeReport& report) {
  const plan::Plan& plan = report.plan;
  PrintMessages("refused", plan.refused);
  PrintMessages("warning", plan.warnings);
  PrintMessages("note", plan.notes);
  // The notes say why when there was nothing to compare (a card not here, nothing kept).
  if (plan.ops.empty() && !report.blocked)
    fmt::print("Nothing to re-apply{}.\n",
               plan.notes.empty() ? ": every runtime setting rocmtune keeps is in place" : "");
  for (const plan::Op& op : plan.ops) fmt::print("sysfs /{} <- {} ({})\n", op.path, op.after.value_or(""), op.reason);
}

void PrintOutcome(const api::ChangeReport& report) {
  for (const std::string& e : report.outcome.errors) PrintError(e);
  if (report.outcome.changed && report.outcome.transaction)
    fmt::print("\nTransaction {} committed: runtime settings re-applied.\n", *report.outcome.transaction);
}

}  // namespace

int RunReapply(const Context& ctx, const Args& args) {
  // The unit passes its instance after `--`, so a name like "--force" arrives here as CARD: it
  // names no card (kernel names are cardN), and an empty one would mean every GPU.
  if (!args.operands.empty()) {
    const std::string& given = args.operands.front();
    if (given.empty() || given.starts_with('-'))
      return Failed(ctx,
                    Error{ErrorCode::kInvalidArgument, 0,
                          fmt::format("reapply: '{}' is not a card: give cardN or a PCI address, or nothing for every "
                                      "GPU",
                                      given)},
                    kExitUsage);
  }
  const std::string card = args.operands.empty() ? "" : args.operands.front();
  // Through rocmtuned (polkit's org.rocmtune1.set) unless --root, no daemon, or --check/--force,
  // which its Reapply does not take: those run here.
  if (!args.check && !args.force)
    if (std::optional<int> rc = ChangeThroughDaemon(
            ctx, args, "Reapply", [&](sd_bus_message* m) { return sd_bus_message_append(m, "s", card.c_str()); }))
      return *rc;
  auto root = ctx.OpenRoot();
  if (!root) return Failed(ctx, root.error(), kExitFailed);
  LocalWriter writer(ctx);
  api::ChangeOptions options{args.check, args.force, nullptr};
  if (!ctx.json) options.on_planned = [](const api::ChangeReport& r) { PrintPlan(r); };
  Result<api::ChangeReport> report = api::Reapply(*root, card, options, writer);
  if (!report) return Failed(ctx, report.error(), ExitFor(report.error()));
  if (ctx.json) fmt::print("{}\n", JsonText(api::ResultJson(*report)));
  else PrintOutcome(*report);
  return ExitFor(report->status);
}

}  // namespace rocmtune::client
