// Trial boots with grub-mkconfig's GRUB (grub-debian, grub): rocmtune's entry beside grub.cfg,
// sourced by the package's /etc/grub.d/42_rocmtune, picked once by `next_entry` in grubenv.
//
// GRUB's one-shot: 00_header writes into every grub.cfg (util/grub.d/00_header.in, and Debian's
// /etc/grub.d/00_header of grub-common 2.06-13)
//   if [ -s $prefix/grubenv ]; then load_env; fi
//   if [ "${next_entry}" ] ; then set default="${next_entry}"; set next_entry=;
//      save_env next_entry; set boot_once=true; else set default="${GRUB_DEFAULT}"; fi
// so the entry whose id is next_entry boots once, and GRUB clears the variable at that boot
// before booting it: a panic or hang in the trial leaves the next boot on the old default. This
// is what grub-reboot does (util/grub-reboot.in: `grub-editenv $grubenv set next_entry=...`).
#include <fmt/format.h>

#include "boot/trial_boot.h"
#include "boot/trial_setups.h"

namespace rocmtune::boot {
namespace {

constexpr std::string_view kGrubDir = "/boot/grub";
constexpr std::string_view kMountInfo = "proc/self/mountinfo";
constexpr std::string_view kWritableGrubEnv =
    "that GRUB can write /boot/grub/grubenv at boot (not on LVM, RAID, LUKS, btrfs or ZFS)";

bool HasGrubEditenv(const sys::Root& root) {
  return root.Exists("usr/bin/grub-editenv") || root.Exists("bin/grub-editenv");
}

std::string GrubEnvArg() { return fmt::format("/{}", kGrubEnvPath); }

}  // namespace

std::optional<std::string> RefuseGrubTrial(const BootContext& ctx) {
  if (!HasGrubEditenv(ctx.root)) return std::string("grub-editenv (grub-common) is not installed");
  auto cfg = ReadOptional(ctx.root, kGrubCfgPath);
  if (!cfg) return fmt::format("/{} is missing or unreadable: there is no default entry to try", kGrubCfgPath);
  if (!GrubCfgSourcesTrialEntry(*cfg) && !ctx.root.Exists(kGrubTrialScriptPath))
    return fmt::format("/{} (installed with rocmtune) is missing, so no grub.cfg would read the trial entry",
                       kGrubTrialScriptPath);
  if (UncheckedInTree(ctx.root, kMountInfo, kWritableGrubEnv)) return std::nullopt;  // PlanGrubTrial warns
  return GrubEnvUnwritable(ctx.root, kGrubDir);
}

void PlanGrubTrial(const BootContext& ctx, const TrialBoot& trial, plan::Op regenerate, plan::Plan& plan) {
  if (auto why = RefuseGrubTrial(ctx)) {
    plan.refused.push_back({"", *why, ""});
    return;
  }
  std::string cfg = ReadOptional(ctx.root, kGrubCfgPath).value_or("");
  // A missing grubenv is an empty environment: grub-editenv creates it (util/grub-editenv.c).
  auto entry = *GrubTrialEntryAt(ctx.root, kGrubTrialEntryPath, trial);
  if (!entry) {
    plan.refused.push_back({"", entry.error().message, ""});
    return;
  }
  AddFileOp(ctx, plan::BackendId::kBootloader, kGrubTrialEntryPath, *entry,
            "the trial's entry: grub.cfg's default entry with the trial's tokens, for one boot", plan);
  // grub.cfg made before 42_rocmtune was installed does not source the entry yet.
  if (!GrubCfgSourcesTrialEntry(cfg)) plan.ops.push_back(std::move(regenerate));
  plan.ops.push_back(RegenOp(plan::Regenerator::kGrubEditenv,
                             {GrubEnvArg(), "set", fmt::format("next_entry={}", kTrialEntryId)},
                             "GRUB boots next_entry once and clears it at that boot (00_header)"));
  if (auto unchecked = UncheckedInTree(ctx.root, kMountInfo, kWritableGrubEnv))
    plan.warnings.push_back({"", *unchecked, ""});
  plan.reboot_required = true;
}

void PlanGrubTrialCleanup(const BootContext& ctx, plan::Plan& plan) {
  if (ctx.root.Exists(kGrubTrialEntryPath))
    AddFileOp(ctx, plan::BackendId::kBootloader, kGrubTrialEntryPath, std::nullopt, "the trial is over", plan);
  // Only rocmtune's own switch, not consumed yet: an admin's grub-reboot stays.
  auto env = ReadOptional(ctx.root, kGrubEnvPath);
  if (env && GrubEnvValue(*env, "next_entry") == kTrialEntryId)
    plan.ops.push_back(RegenOp(plan::Regenerator::kGrubEditenv, {GrubEnvArg(), "unset", "next_entry"},
                               "the trial's one-shot switch was not used"));
}

std::optional<Result<std::string>> GrubTrialEntryAt(const sys::Root& root, std::string_view path,
                                                    const TrialBoot& trial) {
  if (path != kGrubTrialEntryPath) return std::nullopt;
  auto cfg = ReadOptional(root, kGrubCfgPath);
  if (!cfg) return Fail(ErrorCode::kNotFound, fmt::format("/{} is missing or unreadable", kGrubCfgPath));
  auto entry = GrubTrialEntry(*cfg, ReadOptional(root, kGrubEnvPath).value_or(""), trial);
  if (!entry) return Fail(entry.error().code, fmt::format("/{}: {}", kGrubCfgPath, entry.error().message));
  return entry;
}

}  // namespace rocmtune::boot
