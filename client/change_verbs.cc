// apply, set, unset, revert, reset: the core plans and runs them (core/api/change.h); this
// shows the plan as it is made and the outcome, or prints the result document.
#include <fmt/format.h>

#include "api/change.h"
#include "api/status_json.h"
#include "client/exit_codes.h"
#include "client/local_writer.h"
#include "client/verbs.h"
#include "plan/unified_diff.h"
#include "util/json_text.h"

namespace rocmtune::client {
namespace {

void PrintMessages(std::string_view label, const std::vector<plan::Message>& messages) {
  for (const auto& m : messages)
    fmt::print("{}: {}{}\n", label, m.message, m.source.empty() ? "" : fmt::format("\n         source: {}", m.source));
}

void PrintOps(const plan::Plan& plan, bool diff) {
  for (const plan::Op& op : plan.ops) {
    switch (op.kind) {
      case plan::OpKind::kWriteFile:
      case plan::OpKind::kRemoveFile:
        fmt::print("{} /{} ({})\n", op.kind == plan::OpKind::kWriteFile ? "write" : "remove", op.path, op.reason);
        if (diff) fmt::print("{}\n", plan::UnifiedDiff(op.path, op.before, op.after));
        break;
      case plan::OpKind::kWriteSysfs:
        fmt::print("sysfs /{} <- {} ({})\n", op.path, op.after.value_or(""), op.reason);
        break;
      case plan::OpKind::kRegenerate: {
        std::string cmd;
        for (const auto& a : op.argv) cmd += (cmd.empty() ? "" : " ") + a;
        fmt::print("regenerate {}: {} ({})\n", op.path, cmd, op.reason);
        break;
      }
    }
  }
}

// What the plan is, before anything is written.
void PrintPlan(const api::ChangeReport& report, const Args& args) {
  const plan::Plan& plan = report.plan;
  for (const std::string& s : report.skipped) fmt::print("skipped: {}\n", s);
  PrintMessages("refused", plan.refused);
  PrintMessages(args.force ? "drift (forced)" : "drift", plan.conflicts);
  PrintMessages("warning", plan.warnings);
  PrintMessages("note", plan.notes);
  if (report.blocked) fmt::print("Nothing {} changed.\n", args.check ? "would be" : "was");
  else if (plan.ops.empty()) fmt::print("Nothing to change: what rocmtune manages is already as requested.\n");
  else PrintOps(plan, args.diff || args.check);
}

void PrintOutcome(const api::ChangeReport& report, const Args& args) {
  const plan::Plan& plan = report.plan;
  const api::Outcome& outcome = report.outcome;
  for (const std::string& e : outcome.errors) PrintError(e);
  if (report.blocked || plan.ops.empty()) return;
  if (args.check) {
    fmt::print("\ninitramfs: {}, boot loader: {}, reboot required: {}\n", plan::RegenName(plan.initramfs),
               plan::RegenName(plan.bootloader), plan.reboot_required ? "yes" : "no");
  } else if (outcome.changed) {
    fmt::print("\nTransaction {} committed (undo: rocmtunectl revert {}). initramfs: {}, boot loader: {}{}\n",
               *outcome.transaction, *outcome.transaction, plan::RegenName(*outcome.initramfs),
               plan::RegenName(*outcome.bootloader), plan.reboot_required ? "; reboot to take effect" : "");
  }
}

template <typename Request>
int RunChange(const Context& ctx, const Args& args, Request request) {
  auto root = ctx.OpenRoot();
  if (!root) return Failed(ctx, root.error(), kExitFailed);
  LocalWriter writer(ctx);
  api::ChangeOptions options{args.check, args.force, nullptr};
  if (!ctx.json) options.on_planned = [&](const api::ChangeReport& r) { PrintPlan(r, args); };
  Result<api::ChangeReport> report = request(*root, options, writer);
  if (!report) return Failed(ctx, report.error(), ExitFor(report.error()));
  if (ctx.json) fmt::print("{}\n", JsonText(api::ResultJson(*report)));
  else PrintOutcome(*report, args);
  return ExitFor(report->status);
}

}  // namespace

int RunApply(const Context& ctx, const Args& args) {
  return RunChange(ctx, args, [&](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
    return api::Apply(root, args.operands.at(0), args.with, o, w);
  });
}

int RunSet(const Context& ctx, const Args& args) {
  return RunChange(ctx, args, [&](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
    return api::Set(root, args.operands, o, w);
  });
}

int RunUnset(const Context& ctx, const Args& args) {
  return RunChange(ctx, args, [&](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
    return api::Unset(root, args.operands, o, w);
  });
}

int RunRevert(const Context& ctx, const Args& args) {
  std::string id = args.operands.empty() ? "" : args.operands.front();
  return RunChange(ctx, args, [&](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
    return api::Revert(root, id, o, w);
  });
}

int RunReset(const Context& ctx, const Args& args) {
  return RunChange(ctx, args, [&](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
    return api::Reset(root, o, w);
  });
}

}  // namespace rocmtune::client
