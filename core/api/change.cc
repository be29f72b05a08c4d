// The path every changing request takes once it is planned; change_requests.cc plans them.
#include "api/change.h"

#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/change_internal.h"
#include "boot/boot_files.h"
#include "boot/boot_image.h"
#include "detect/boot_setup.h"
#include "journal/history.h"
#include "knobs/registry.h"
#include "plan/owned_paths.h"
#include "util/text.h"

namespace rocmtune::api {
namespace {

ChangeStatus StatusForReply(const plan::HelperReply& reply) {
  switch (reply.status) {
    case plan::HelperStatus::kCommitted:
    case plan::HelperStatus::kUnchanged: return ChangeStatus::kOk;
    case plan::HelperStatus::kRefused: return ChangeStatus::kRefused;
    case plan::HelperStatus::kConflict: return ChangeStatus::kDrift;
    case plan::HelperStatus::kBusy:
    case plan::HelperStatus::kFailed: break;
  }
  return ChangeStatus::kFailed;
}

// The helper rebuilt the initramfs: whether the image the next boot loads now carries rocmtune's
// module options (a tool can exit 0 and build another kernel's image, or none). One that loads
// amdgpu without them is also a warning, so the human summary says it.
void CheckRegeneratedImage(const sys::Root& root, ChangeReport& report) {
  auto kernel = root.ReadFile("proc/sys/kernel/osrelease", 4096);
  // had_options: the regeneration may be the one that takes rocmtune's options out again.
  report.outcome.boot_image = boot::CheckBootImage(root, kernel ? text::Clean(*kernel) : std::string(),
                                                   detect::DetectBootSetup(root).initramfs, true);
  const auto& image = report.outcome.boot_image;
  if (image && (image->state == boot::ImageState::kLacks || image->state == boot::ImageState::kDiffers ||
                image->state == boot::ImageState::kStale))
    report.plan.warnings.push_back({"", image->message, ""});
}

void Write(const sys::Root& root, ChangeReport& report, const ChangeOptions& options, Writer& writer) {
  Outcome& outcome = report.outcome;
  if (auto may = writer.MayWrite(root); !may) {
    outcome.errors.push_back(may.error().message);
    report.status =
        may.error().code == ErrorCode::kNotAuthorized ? ChangeStatus::kNotAuthorized : ChangeStatus::kFailed;
    return;
  }
  auto reply = writer.Apply(report.plan, options.force);
  if (!reply) {
    outcome.errors.push_back(reply.error().message);
    report.status =
        reply.error().code == ErrorCode::kNotAuthorized ? ChangeStatus::kNotAuthorized : ChangeStatus::kFailed;
    return;
  }
  report.status = StatusForReply(*reply);
  // A recorded transaction is a change even with no op: it made a profile active (record_if_empty).
  outcome.changed = reply->status == plan::HelperStatus::kCommitted;
  if (outcome.changed) {
    if (!reply->transaction.empty()) outcome.transaction = reply->transaction;
    outcome.initramfs = reply->initramfs;
    outcome.bootloader = reply->bootloader;
  }
  if (outcome.initramfs == plan::Regen::kDone) CheckRegeneratedImage(root, report);
  outcome.errors = reply->messages;
  if (report.status != ChangeStatus::kOk && outcome.errors.empty())
    outcome.errors.push_back(
        fmt::format("rocmtune-helper: {}, without saying why", plan::HelperStatusName(reply->status)));
  for (const auto& id : reply->recovered)
    report.plan.warnings.push_back({"", fmt::format("interrupted transaction {} was rolled back first", id), ""});
  EmitRecovered(root, reply->recovered, {}, options);
}

}  // namespace

Result<System> PrepareChange(const sys::Root& root, const ChangeOptions& options, Writer& writer,
                             std::vector<plan::Message>& notes) {
  auto dup = root.Duplicate();
  if (!dup) return tl::unexpected(dup.error());
  // The daemon cannot read a root-only ESP; the helper reads the loader's files for it, only for
  // the plans that read them: a trial's (its systemd-boot entry copies the default one), any
  // change while a trial's state exists (it may remove the trial's entry), and every plan
  // whose boot setup or next boot the ESP decides (boot::BootFilesDecide).
  const bool needs_boot_files =
      options.trial || dup->Exists(plan::kTrialState) || (boot::BootFilesHidden(*dup) && boot::BootFilesDecide(*dup));
  if (!dup->supplement() && needs_boot_files && boot::BootFilesHidden(*dup)) {
    auto files = writer.ReadBootFiles(*dup);
    if (files && *files) dup->Supplement(std::make_shared<const sys::RootSupplement>(std::move(**files)));
    else if (!files)
      notes.push_back({"",
                       fmt::format("the ESP is readable by root only and rocmtune-helper could not read its boot "
                                   "loader files: {}",
                                   files.error().message),
                       ""});
  }
  auto system = LoadSystem(std::move(*dup));
  // A tree this user cannot read (the helper writes its journal 0600) is one they may not change
  // either: that is the answer (exit 4 and the way out), not the read's "Permission denied".
  if (!system && !options.check)
    if (auto may = writer.MayWrite(root); !may) return tl::unexpected(may.error());
  if (!system) return system;
  std::vector<std::string> interrupted;
  for (const journal::Transaction& t : system->journal)
    if (t.state == journal::State::kIncomplete) interrupted.push_back(t.id);
  if (interrupted.empty()) return system;
  if (options.check || !writer.MayWrite(root)) {
    for (const std::string& id : interrupted)
      notes.push_back({"",
                       fmt::format("transaction {} was interrupted; the next change rolls it back first, and this "
                                   "plan is made against the half-changed files",
                                   id),
                       ""});
    return system;
  }
  auto reply = writer.Recover();
  if (!reply || reply->status != plan::HelperStatus::kUnchanged) {
    std::string why = !reply                    ? reply.error().message
                      : reply->messages.empty() ? std::string(plan::HelperStatusName(reply->status))
                                                : reply->messages.front();
    return Fail(ErrorCode::kIo,
                fmt::format("rolling back interrupted transaction {} failed: {}", interrupted.front(), why));
  }
  for (const std::string& id : reply->recovered)
    notes.push_back({"", fmt::format("interrupted transaction {} was rolled back first", id), ""});
  EmitRecovered(root, reply->recovered, system->journal, options);
  for (const std::string& m : reply->messages) notes.push_back({"", m, ""});
  auto again = root.Duplicate();
  if (!again) return tl::unexpected(again.error());
  return LoadSystem(std::move(*again));
}

ChangeReport CarryOut(const sys::Root& root, ChangeReport report, const ChangeOptions& options, Writer& writer) {
  plan::Plan& plan = report.plan;
  if (!plan.root) plan.root = root.id();
  report.outcome.check = options.check;
  report.outcome.forced = options.force;
  // Refusals --force overrides: refusals without it (nothing is written), warnings with it.
  for (plan::Message& m : plan.needs_force) (options.force ? plan.warnings : plan.refused).push_back(std::move(m));
  if (!plan.needs_force.empty() && !options.force) plan.ops.clear();
  plan.needs_force.clear();
  report.blocked = !plan.refused.empty() || (!plan.conflicts.empty() && !options.force);
  if (!plan.refused.empty()) report.status = ChangeStatus::kRefused;
  else if (report.blocked) report.status = ChangeStatus::kDrift;
  if (options.on_planned) options.on_planned(report);
  if (!report.blocked && plan::WillRecord(plan) && !options.check) Write(root, report, options, writer);
  EmitChangeEvents(root, report, options);
  return report;
}

void AddDriftConflicts(const System& system, plan::Plan& plan) {
  for (const plan::Op& op : plan.ops) {
    if (op.kind != plan::OpKind::kWriteFile && op.kind != plan::OpKind::kRemoveFile) continue;
    if (!plan::IsOwnedFile(op.path) || !journal::IsDrift(system.journal, op.path, op.before)) continue;
    plan.conflicts.push_back({"",
                              fmt::format("{} was edited by someone else since rocmtune wrote it (drift); "
                                          "--force overwrites it",
                                          system.root.Display(op.path)),
                              ""});
  }
}

nlohmann::ordered_json ResultJson(const ChangeReport& report) {
  nlohmann::ordered_json doc = ResultJson(report.plan, report.outcome);
  doc["skipped"] = report.skipped;
  return doc;
}

}  // namespace rocmtune::api
