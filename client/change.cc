#include "client/change.h"

#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include "api/result_json.h"
#include "client/exit_codes.h"
#include "client/helper_client.h"
#include "journal/history.h"
#include "plan/owned_paths.h"
#include "plan/plan_json.h"
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

int ExitForHelper(const HelperReply& reply) {
  switch (reply.status) {
    case plan::HelperStatus::kCommitted:
    case plan::HelperStatus::kUnchanged: return kExitOk;
    case plan::HelperStatus::kRefused: return kExitRefused;
    case plan::HelperStatus::kConflict: return kExitDrift;
    case plan::HelperStatus::kBusy:
    case plan::HelperStatus::kFailed: break;
  }
  if (reply.exit_code == kExitNotAuthorized) return kExitNotAuthorized;
  return kExitFailed;
}

}  // namespace

std::optional<LoadedSystem> LoadSystemForChange(const Context& ctx, const ChangeOptions& options,
                                                std::vector<plan::Message>& notes) {
  auto system = LoadSystem(ctx);
  if (!system) return system;
  std::vector<std::string> interrupted;
  for (const journal::Transaction& t : system->journal)
    if (t.state == journal::State::kIncomplete) interrupted.push_back(t.id);
  if (interrupted.empty()) return system;
  bool may_write = !system->root.IsLive() || ::geteuid() == 0;
  if (options.check || !may_write) {
    for (const std::string& id : interrupted)
      notes.push_back({"", fmt::format("transaction {} was interrupted; the next change rolls it back first, and this "
                                       "plan is made against the half-changed files", id), ""});
    return system;
  }
  ::signal(SIGPIPE, SIG_IGN);
  auto reply = RunHelperRecover(ctx);
  if (!reply || reply->status != plan::HelperStatus::kUnchanged) {
    fmt::print(stderr, "rocmtunectl: rolling back interrupted transaction {} failed: {}\n", interrupted.front(),
               !reply ? reply.error().message : reply->messages.empty() ? std::string(plan::HelperStatusName(reply->status)) : reply->messages.front());
    return std::nullopt;
  }
  for (const std::string& id : reply->recovered)
    notes.push_back({"", fmt::format("interrupted transaction {} was rolled back first", id), ""});
  for (const std::string& m : reply->messages) notes.push_back({"", m, ""});
  return LoadSystem(ctx);
}

void AddDriftConflicts(const sys::Root& root, const std::vector<journal::Transaction>& txns, plan::Plan& plan) {
  for (const plan::Op& op : plan.ops) {
    if (op.kind != plan::OpKind::kWriteFile && op.kind != plan::OpKind::kRemoveFile) continue;
    if (!plan::IsOwnedFile(op.path) || !journal::IsDrift(txns, op.path, op.before)) continue;
    plan.conflicts.push_back({"", fmt::format("{} was edited by someone else since rocmtune wrote it (drift); "
                                              "--force overwrites it", root.Display(op.path)), ""});
  }
}

int RunChange(const Context& ctx, plan::Plan plan, const ChangeOptions& options) {
  api::Outcome outcome;
  outcome.check = options.check;
  int rc = kExitOk;
  bool blocked = !plan.refused.empty() || (!plan.conflicts.empty() && !options.force);
  if (!plan.refused.empty()) rc = kExitRefused;
  else if (blocked) rc = kExitDrift;

  if (!ctx.json) {
    PrintMessages("refused", plan.refused);
    PrintMessages(options.force ? "drift (forced)" : "drift", plan.conflicts);
    PrintMessages("warning", plan.warnings);
    PrintMessages("note", plan.notes);
    if (blocked) fmt::print("Nothing {} changed.\n", options.check ? "would be" : "was");
    else if (plan.ops.empty()) fmt::print("Nothing to change: what rocmtune manages is already as requested.\n");
    else PrintOps(plan, options.diff || options.check);
  }

  auto root = ctx.OpenRoot();
  if (root && !plan.root) plan.root = root->id();
  if (!blocked && !plan.ops.empty() && !options.check) {
    if (!root) {
      outcome.errors.push_back(root.error().message);
      rc = kExitFailed;
    } else if (root->IsLive() && ::geteuid() != 0) {
      outcome.errors.push_back("changing the running system needs root: run it with sudo");
      rc = kExitNotAuthorized;
    } else {
      ::signal(SIGPIPE, SIG_IGN);  // the helper may end before reading a refused plan
      auto reply = RunHelper(ctx, plan, options.force);
      if (!reply) {
        outcome.errors.push_back(reply.error().message);
        rc = kExitFailed;
      } else {
        rc = ExitForHelper(*reply);
        outcome.changed = reply->status == plan::HelperStatus::kCommitted;
        if (!reply->transaction.empty() && outcome.changed) outcome.transaction = reply->transaction;
        if (outcome.changed) {
          outcome.initramfs = plan::ParseRegen(reply->initramfs).value_or(plan::Regen::kNo);
          outcome.bootloader = plan::ParseRegen(reply->bootloader).value_or(plan::Regen::kNo);
        }
        outcome.errors = reply->messages;
        if (rc != kExitOk && outcome.errors.empty())
          outcome.errors.push_back(fmt::format("rocmtune-helper: {} (exit {}), without saying why", plan::HelperStatusName(reply->status),
                                               reply->exit_code));
        for (const auto& id : reply->recovered)
          plan.warnings.push_back({"", fmt::format("interrupted transaction {} was rolled back first", id), ""});
      }
    }
  }

  if (ctx.json) {
    fmt::print("{}\n", JsonText(api::ResultJson(plan, outcome)));
    return rc;
  }
  for (const std::string& e : outcome.errors) fmt::print(stderr, "rocmtunectl: {}\n", e);
  if (!blocked && !plan.ops.empty()) {
    if (options.check) {
      fmt::print("\ninitramfs: {}, boot loader: {}, reboot required: {}\n", plan::RegenName(plan.initramfs),
                 plan::RegenName(plan.bootloader), plan.reboot_required ? "yes" : "no");
    } else if (outcome.changed) {
      fmt::print("\nTransaction {} committed (undo: rocmtunectl revert {}). initramfs: {}, boot loader: {}{}\n",
                 *outcome.transaction, *outcome.transaction, plan::RegenName(*outcome.initramfs),
                 plan::RegenName(*outcome.bootloader), plan.reboot_required ? "; reboot to take effect" : "");
    }
  }
  return rc;
}

}  // namespace rocmtune::client
