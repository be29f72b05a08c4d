// grub-debian behind boot::Setup (setup.h): rocmtune's own drop-in in /etc/default/grub.d.
#include <fmt/format.h>

#include "boot/cmdline_tokens.h"
#include "boot/grub_config.h"
#include "boot/setup_edits.h"
#include "boot/trial_setups.h"
#include "plan/owned_paths.h"
#include "plan/plan.h"

namespace rocmtune::boot {
namespace {

// Debian and Ubuntu: grub-mkconfig (a Debian patch) sources /etc/default/grub.d/*.cfg, so
// rocmtune's tokens live in a drop-in of its own and no admin line is edited.
class GrubDebianSetup final : public Setup {
 public:
  detect::BootKind Kind() const override { return detect::BootKind::kGrubDebian; }
  bool InPlace() const override { return false; }
  std::vector<OwnedToken> Owned(const BootContext& ctx) const override {
    std::vector<OwnedToken> out;
    auto content = ReadOptional(ctx.root, plan::kGrubDropInPath);
    if (!content) return out;
    for (std::string& t : RocmtuneDropInTokens(*content, kGrubCmdlineLinuxDefault).value_or(std::vector<std::string>{}))
      out.push_back({std::move(t), std::nullopt});
    return out;
  }
  std::vector<SetupFile> FilesRead() const override {
    return {{kGrubDefaultsPath, ""}, {"etc/default/grub.d", ".cfg"}};
  }
  NextBoot ReadNextBoot(const BootContext& ctx) const override { return NextBootFromGrub(ctx, true); }
  std::vector<std::pair<std::string, std::string>> EditedCmdlines(const BootContext& /*ctx*/) const override {
    return {};
  }
  void PlanChange(const BootContext& ctx, const CmdlineChange& change, plan::Plan& plan) const override {
    if (change.tokens.empty()) {
      AddFileOp(ctx, plan::BackendId::kCmdline, plan::kGrubDropInPath, std::nullopt, std::string(kSetupCmdlineReason),
                plan);
    } else {
      auto text = RocmtuneDropIn(kGrubCmdlineLinuxDefault, change.tokens);
      if (!text) {
        plan.refused.push_back({"", text.error().message, ""});
        return;
      }
      AddFileOp(ctx, plan::BackendId::kCmdline, plan::kGrubDropInPath, *text, std::string(kSetupCmdlineReason), plan);
    }
    plan.ops.push_back(GrubCfgRegen(ctx, "grub.cfg is generated from /etc/default/grub and its drop-ins"));
    plan.bootloader = plan::Regen::kPending;
  }
  std::optional<std::string> RefuseTrial(const BootContext& ctx) const override { return RefuseGrubTrial(ctx); }
  void PlanTrial(const BootContext& ctx, const TrialBoot& trial, plan::Plan& plan) const override {
    PlanGrubTrial(ctx, trial, GrubCfgRegen(ctx, std::string(kSetupGrubCfgReason)), plan);
  }
  void PlanTrialCleanup(const BootContext& ctx, plan::Plan& plan) const override { PlanGrubTrialCleanup(ctx, plan); }
  std::optional<Result<std::string>> TrialEntry(const sys::Root& root, std::string_view path,
                                                const TrialBoot& trial) const override {
    return GrubTrialEntryAt(root, path, trial);
  }
};

}  // namespace

const Setup& GrubDebianCmdlineSetup() {
  static const GrubDebianSetup kSetup;
  return kSetup;
}

}  // namespace rocmtune::boot
