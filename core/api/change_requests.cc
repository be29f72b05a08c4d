// Planning each changing request: what apply, set, unset, revert and reset mean.
#include <algorithm>

#include <fmt/format.h>

#include "api/change_internal.h"
#include "api/trial_internal.h"
#include "boot/initramfs.h"
#include "journal/history.h"
#include "journal/revert.h"
#include "knobs/admin_lines.h"
#include "knobs/knob_key.h"
#include "knobs/setting_findings.h"
#include "knobs/sysfs_attributes.h"
#include "planner/planner.h"
#include "profiles/apply_request.h"
#include "profiles/desired.h"
#include "profiles/match.h"
#include "profiles/profile_store.h"
#include "util/suggest.h"

namespace rocmtune::api {
namespace {

void Prepend(std::vector<plan::Message>& to, const std::vector<plan::Message>& first) {
  to.insert(to.begin(), first.begin(), first.end());
}

// A runtime attribute compared through its codec: a table reading with '*' on the row of the
// index that was written holds that index.
bool AttributeHolds(std::string_view path, std::string_view raw, std::string_view written) {
  const knobs::SysfsAttribute* attr = knobs::FindSysfsAttributeOfPath(path);
  return attr ? attr->codec->Holds(raw, written) : raw == written;
}

// A plan with nothing to do but say why (refused, or nothing left to revert).
ChangeReport Empty(plan::Intent intent) {
  ChangeReport report;
  report.plan.intent = std::move(intent);
  return report;
}

Result<ChangeReport> PlanKnobs(const sys::Root& root, const plan::Request& request, plan::Intent intent,
                               const ChangeOptions& options, Writer& writer) {
  std::vector<plan::Message> recovery;
  auto system = PrepareChange(root, options, writer, recovery);
  if (!system) return tl::unexpected(system.error());
  ChangeReport report;
  report.plan = plan::PlanRequest(system->Context(), request);
  report.plan.intent = std::move(intent);
  Prepend(report.plan.warnings, recovery);
  FinishTrial(*system, request, report, options);
  AddDriftConflicts(*system, report.plan);
  return CarryOut(root, std::move(report), options, writer);
}

}  // namespace

Result<ChangeReport> Set(const sys::Root& root, const std::vector<std::string>& assignments,
                         const ChangeOptions& options, Writer& writer) {
  plan::Request request;
  for (const std::string& text : assignments) {
    auto a = knobs::ParseAssignment(text);
    if (!a) return Fail(ErrorCode::kInvalidArgument, a.error().message);
    request.set.push_back(std::move(*a));
  }
  request.admin_lines = options.admin_lines;
  return PlanKnobs(root, request, {"set", "", assignments, "", {}}, options, writer);
}

Result<ChangeReport> Unset(const sys::Root& root, const std::vector<std::string>& keys, const ChangeOptions& options,
                           Writer& writer) {
  plan::Request request;
  for (const std::string& text : keys) {
    auto k = knobs::ParseKnobKey(text);
    if (!k) return Fail(ErrorCode::kInvalidArgument, k.error().message);
    request.unset.push_back(std::move(*k));
  }
  request.admin_lines = options.admin_lines;
  return PlanKnobs(root, request, {"unset", "", keys, "", {}}, options, writer);
}

Result<ChangeReport> Reset(const sys::Root& root, const ChangeOptions& options, Writer& writer) {
  std::vector<plan::Message> recovery;
  auto system = PrepareChange(root, options, writer, recovery);
  if (!system) return tl::unexpected(system.error());
  auto kctx = system->Context();
  ChangeReport report;
  plan::Request request = plan::ResetRequest(kctx);
  report.plan = plan::PlanRequest(kctx, request);
  report.plan.intent = {"reset", "", {}, "", {}};
  for (const knobs::KnobKey& key : request.unset) report.knobs.push_back(key.Text());
  // The admin's lines that `--admin-lines` commented out come back too: reset is stock.
  if (report.plan.refused.empty()) {
    size_t first = report.plan.ops.size();
    knobs::PlanRestoreAdminLines(kctx.root, report.plan, report.knobs);
    // A modprobe.d line put back is read at the next load, and from the initramfs's copy of
    // modprobe.d: the image is rebuilt after every file is written, and a reboot follows.
    bool modprobe = std::any_of(report.plan.ops.begin() + static_cast<std::ptrdiff_t>(first), report.plan.ops.end(),
                                [](const plan::Op& op) { return op.backend == plan::BackendId::kModprobe; });
    if (modprobe) {
      std::stable_partition(report.plan.ops.begin(), report.plan.ops.end(),
                            [](const plan::Op& op) { return op.kind != plan::OpKind::kRegenerate; });
      boot::AddInitramfsRegeneration(kctx, report.plan);
      report.plan.reboot_required = true;
    }
  }
  // A trial pending or failed goes too: reset is stock, and the next boot is not a trial.
  if (report.plan.refused.empty()) AddTrialReset(*system, report.plan);
  Prepend(report.plan.warnings, recovery);
  AddDriftConflicts(*system, report.plan);
  return CarryOut(root, std::move(report), options, writer);
}

Result<ChangeReport> Revert(const sys::Root& root, const std::string& id, const ChangeOptions& options,
                            Writer& writer) {
  std::vector<plan::Message> recovery;
  auto system = PrepareChange(root, options, writer, recovery);
  if (!system) return tl::unexpected(system.error());
  const auto& txns = system->journal;
  const journal::Transaction* txn = nullptr;
  std::string not_in_effect;
  if (id.empty() || id == "last") {
    txn = journal::LastRevertible(txns);
    // Nothing left to undo is the state the caller wants: like any idempotent request, done.
    if (!txn) not_in_effect = "nothing left in effect to revert (see rocmtunectl history)";
  } else {
    txn = journal::Find(txns, id);
    if (!txn) return Fail(ErrorCode::kNotFound, fmt::format("no transaction {} (see rocmtunectl history)", id));
    const journal::Effect effect = journal::Effects(txns)[static_cast<size_t>(txn - txns.data())];
    if (!effect.superseded_by.empty()) {
      // Its files hold what the later transaction wrote: undoing it now would undo that one's work.
      ChangeReport report = Empty({"revert", "", {}, txn->id, {}});
      report.plan.warnings = recovery;
      report.plan.refused.push_back(
          {"",
           fmt::format("transaction {} is not in effect: transaction {} replaced it since; revert {} first", txn->id,
                       effect.superseded_by, effect.superseded_by),
           ""});
      return CarryOut(root, std::move(report), options, writer);
    }
    if (!effect.in_effect)
      not_in_effect = fmt::format("transaction {} is not in effect ({})", txn->id,
                                  effect.reverted_by.empty()
                                      ? std::string(journal::StateName(txn->state))
                                      : fmt::format("already reverted by transaction {}", effect.reverted_by));
  }
  if (!not_in_effect.empty()) {
    ChangeReport report = Empty({"revert", "", {}, txn ? txn->id : "", {}});
    report.plan.warnings = recovery;
    report.plan.warnings.push_back({"", not_in_effect, ""});
    return CarryOut(root, std::move(report), options, writer);
  }
  ChangeReport report;
  report.plan = journal::RevertPlan(system->root, txns, *txn, options.force, AttributeHolds);
  report.plan.record_if_empty = true;
  report.knobs = txn->intent.args;  // what the undone transaction changed
  Prepend(report.plan.warnings, recovery);
  return CarryOut(root, std::move(report), options, writer);
}

Result<ChangeReport> Apply(const sys::Root& root, const std::string& name, const std::vector<std::string>& with,
                           const ChangeOptions& options, Writer& writer) {
  std::vector<plan::Message> recovery;
  auto system = PrepareChange(root, options, writer, recovery);
  if (!system) return tl::unexpected(system.error());
  profiles::ProfileStore store = profiles::ProfileStore::Load(system->root);
  if (!store.Find(name)) {
    std::vector<std::string> names;
    for (const profiles::StoreEntry& e : store.entries()) names.push_back(e.name);
    return Fail(ErrorCode::kNotFound,
                fmt::format("no profile '{}' (see rocmtunectl profiles).{}", name, text::DidYouMean(name, names)));
  }
  ChangeReport refused = Empty({"apply", name, {}, "", {}});
  auto resolved = store.Resolve(name);
  if (!resolved) {
    // A broken profile (bad TOML, an unknown key, an include cycle) is refused as a whole.
    refused.plan.refused.push_back({"", resolved.error().message, ""});
    return CarryOut(root, std::move(refused), options, writer);
  }
  if (auto ok = profiles::CheckWithOptional(*resolved, with); !ok)
    return Fail(ErrorCode::kInvalidArgument, ok.error().message);

  std::vector<plan::Message> warnings = recovery;
  profiles::MatchResult match = profiles::MatchProfile(*resolved, system->inventory);
  if (!match.matches) {
    std::string why = fmt::format("profile {} does not fit this machine: {}", name, match.reason);
    if (!options.force) {
      refused.plan.refused.push_back({"", why + " (--force applies it anyway)", ""});
      return CarryOut(root, std::move(refused), options, writer);
    }
    warnings.push_back({"", why + "; applied because of --force", ""});
  }

  auto desired = profiles::DesiredState(*resolved, system->root, system->inventory, with);
  if (!desired) return Fail(ErrorCode::kInvalidArgument, desired.error().message);
  auto kctx = system->Context();
  profiles::ApplyRequest apply =
      profiles::BuildApplyRequest(kctx, name, *desired, journal::ActiveApply(system->journal));
  ChangeReport report;
  plan::Plan& plan = report.plan;
  plan = plan::PlanRequest(kctx, apply.request);
  plan.intent = std::move(apply.intent);
  plan.intent.with = with;
  plan.intent.resets = resolved->reset;
  if (!desired->refused.empty()) {
    plan.refused.insert(plan.refused.end(), desired->refused.begin(), desired->refused.end());
    plan.ops.clear();
  }
  // What the profile replaces travels with the plan's warnings; its notes are the plan's notes.
  Prepend(plan.warnings, warnings);
  plan.warnings.insert(plan.warnings.end(), apply.replaced.begin(), apply.replaced.end());
  plan.notes = desired->notes;
  // Settings of others that the rules of `set` find wrong stay where they are, and may undo what
  // the profile means to do: name the files that hold them.
  // One message per setting: a line the warnings already name is not noted again.
  auto warned = [&](const detect::Finding& f) {
    return std::any_of(plan.warnings.begin(), plan.warnings.end(), [&](const plan::Message& w) {
      return !w.key.empty() && (w.key == f.subject || w.key == "env." + f.subject);
    });
  };
  for (const detect::Finding& f : knobs::SettingFindings(kctx))
    if (!f.file.empty() && !warned(f))
      plan.notes.push_back({f.subject,
                            fmt::format("/{}:{} still sets {}: {}; rocmtune does not edit it ({})", f.file, f.line,
                                        f.subject, f.what, f.fix.text),
                            detect::SourceText(f)});
  report.skipped = desired->skipped;
  const journal::Transaction* active = journal::ActiveApply(system->journal);
  plan.record_if_empty = !active || active->intent.profile != name || active->intent.with != with;
  FinishTrial(*system, apply.request, report, options);
  AddDriftConflicts(*system, plan);
  return CarryOut(root, std::move(report), options, writer);
}

}  // namespace rocmtune::api
