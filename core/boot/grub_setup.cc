// Upstream GRUB (grub) behind boot::Setup (setup.h): /etc/default/grub edited token by token.
#include <fmt/format.h>

#include "boot/cmdline_tokens.h"
#include "boot/grub_config.h"
#include "boot/setup_edits.h"
#include "boot/trial_setups.h"
#include "plan/owned_paths.h"
#include "plan/plan.h"

namespace rocmtune::boot {
namespace {

// Upstream GRUB: only /etc/default/grub, edited token by token.
class GrubSetup final : public Setup {
 public:
  detect::BootKind Kind() const override { return detect::BootKind::kGrub; }
  std::vector<SetupFile> FilesRead() const override { return {{kGrubDefaultsPath, ""}}; }
  NextBoot ReadNextBoot(const BootContext& ctx) const override { return NextBootFromGrub(ctx, false); }
  std::vector<std::pair<std::string, std::string>> EditedCmdlines(const BootContext& ctx) const override {
    std::vector<std::pair<std::string, std::string>> out;
    AddGrubVar(ctx, true, out);
    return out;
  }
  void PlanChange(const BootContext& ctx, const CmdlineChange& change, plan::Plan& plan) const override {
    EditFile(
        ctx, kGrubDefaultsPath,
        [&](std::string_view c) { return SetAssignmentTokens(c, kGrubCmdlineLinuxDefault, change.add, change.remove); },
        kSetupCmdlineReason, plan);
    AddState(ctx, change, plan);
    AddRegen(plan, plan::Regenerator::kGrubMkconfig, {"-o", "/boot/grub/grub.cfg"},
             "grub.cfg is generated from /etc/default/grub");
  }
  std::optional<std::string> RefuseTrial(const BootContext& ctx) const override { return RefuseGrubTrial(ctx); }
  void PlanTrial(const BootContext& ctx, const TrialBoot& trial, plan::Plan& plan) const override {
    PlanGrubTrial(
        ctx, trial,
        RegenOp(plan::Regenerator::kGrubMkconfig, {"-o", "/boot/grub/grub.cfg"}, std::string(kSetupGrubCfgReason)),
        plan);
  }
  void PlanTrialCleanup(const BootContext& ctx, plan::Plan& plan) const override { PlanGrubTrialCleanup(ctx, plan); }
  std::optional<Result<std::string>> TrialEntry(const sys::Root& root, std::string_view path,
                                                const TrialBoot& trial) const override {
    return GrubTrialEntryAt(root, path, trial);
  }
};

}  // namespace

const Setup& GrubCmdlineSetup() {
  static const GrubSetup kSetup;
  return kSetup;
}

}  // namespace rocmtune::boot
