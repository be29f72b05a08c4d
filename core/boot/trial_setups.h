// The trial boot of each setup (Setup::RefuseTrial / PlanTrial / PlanTrialCleanup,
// setup.h), called by the setup classes in setups.cc: the GRUB ones in
// trial_grub.cc, the BLS ones (grub-bls, systemd-boot) in trial_bls.cc, what the system tells
// about its boot loader's abilities in trial_refusals.cc.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "boot/boot_context.h"
#include "boot/setup.h"
#include "plan/plan.h"
#include "util/result.h"

namespace rocmtune::boot {

// trial_refusals.cc
// Why GRUB cannot write its environment block in `dir` ("/boot/grub") at boot, from the mount
// that holds it (proc/self/mountinfo) and its block device (sys/dev/block/MAJ:MIN): LVM, RAID,
// LUKS and other device-mapper targets, btrfs, ZFS, read-only images; nullopt: it can.
std::optional<std::string> GrubEnvUnwritable(const sys::Root& root, std::string_view dir);
// Why systemd-boot cannot boot an entry once here: no LoaderFeatures or no one-shot bit in it,
// the EFI variables mounted read-only; nullopt: it can.
std::optional<std::string> SdBootOneShotRefusal(const sys::Root& root);
// Whether Secure Boot is on (the SecureBoot EFI variable is 1).
bool SecureBootOn(const sys::Root& root);
// Whether the PE image at `path` (a UKI) has a `.cmdline` section; nullopt: not a PE image or
// unreadable.
std::optional<bool> PeHasCmdline(const sys::Root& root, std::string_view path);

// A tree that is not the running system (--root) and lacks what tells (the mount table, EFI
// variables): the checks cannot run there, and the plan warns with `what` instead of refusing
// (such a tree is only planned for, never booted from here); nullopt otherwise.
std::optional<std::string> UncheckedInTree(const sys::Root& root, std::string_view evidence, std::string_view what);

// trial_grub.cc (grub-debian and grub: `regenerate` is the setup's grub.cfg regenerator op)
std::optional<std::string> RefuseGrubTrial(const BootContext& ctx);
void PlanGrubTrial(const BootContext& ctx, const TrialBoot& trial, plan::Op regenerate, plan::Plan& plan);
void PlanGrubTrialCleanup(const BootContext& ctx, plan::Plan& plan);
// The entry beside grub.cfg (Setup::TrialEntry): nullopt when `path` is not kGrubTrialEntryPath.
std::optional<Result<std::string>> GrubTrialEntryAt(const sys::Root& root, std::string_view path,
                                                    const TrialBoot& trial);

// trial_bls.cc
std::optional<std::string> RefuseGrubBlsTrial(const BootContext& ctx);
void PlanGrubBlsTrial(const BootContext& ctx, const TrialBoot& trial, plan::Plan& plan);
void PlanGrubBlsTrialCleanup(const BootContext& ctx, plan::Plan& plan);
std::optional<std::string> RefuseSdBootTrial(const BootContext& ctx);
void PlanSdBootTrial(const BootContext& ctx, const TrialBoot& trial, plan::Plan& plan);
void PlanSdBootTrialCleanup(const BootContext& ctx, plan::Plan& plan);
// The entries beside the default one (Setup::TrialEntry): nullopt when `path` is not the setup's
// trial entry. systemd-boot's serves kernelstub too (kernelstub writes systemd-boot's entries).
std::optional<Result<std::string>> GrubBlsTrialEntryAt(const sys::Root& root, std::string_view path,
                                                       const TrialBoot& trial);
std::optional<Result<std::string>> SdBootTrialEntryAt(const sys::Root& root, std::string_view path,
                                                      const TrialBoot& trial);

// A setup whose trial boot is systemd-boot's one-shot entry (systemd-boot, and kernelstub, which
// writes systemd-boot's entries): the four trial hooks, written once.
class SdBootTrialSetup : public Setup {
 public:
  std::optional<std::string> RefuseTrial(const BootContext& ctx) const override { return RefuseSdBootTrial(ctx); }
  void PlanTrial(const BootContext& ctx, const TrialBoot& trial, plan::Plan& plan) const override {
    PlanSdBootTrial(ctx, trial, plan);
  }
  void PlanTrialCleanup(const BootContext& ctx, plan::Plan& plan) const override { PlanSdBootTrialCleanup(ctx, plan); }
  std::optional<Result<std::string>> TrialEntry(const sys::Root& root, std::string_view path,
                                                const TrialBoot& trial) const override {
    return SdBootTrialEntryAt(root, path, trial);
  }
};

// Shared by the setups (setups.cc) and their trials (trial_grub.cc, trial_bls.cc): a
// write (or, `after` nullopt, a removal) of `path` by `backend`, nothing when the file already is
// `after`; and a run of a regenerator row's program with `args` (a regeneration or a one-shot switch).
void AddFileOp(const BootContext& ctx, plan::BackendId backend, std::string_view path, std::optional<std::string> after,
               std::string reason, plan::Plan& plan);
plan::Op RegenOp(plan::Regenerator regenerator, std::vector<std::string> args, std::string reason);

}  // namespace rocmtune::boot
