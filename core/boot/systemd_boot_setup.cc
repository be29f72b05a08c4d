// systemd-boot behind boot::Setup (setup.h): /etc/kernel/cmdline and kernel-install.
#include <fmt/format.h>

#include "boot/cmdline_tokens.h"
#include "boot/grub_config.h"
#include "boot/setup_edits.h"
#include "boot/trial_setups.h"
#include "plan/owned_paths.h"
#include "plan/plan.h"

namespace rocmtune::boot {
namespace {

// systemd-boot and UKIs: kernel-install builds every entry from /etc/kernel/cmdline.
class KernelInstallSetup final : public SdBootTrialSetup {
 public:
  detect::BootKind Kind() const override { return detect::BootKind::kSystemdBoot; }
  bool ReadsEsp() const override { return true; }
  NextBoot ReadNextBoot(const BootContext& ctx) const override { return NextBootFromLoaderEntry(ctx); }
  std::vector<std::pair<std::string, std::string>> EditedCmdlines(const BootContext& ctx) const override {
    std::vector<std::pair<std::string, std::string>> out;
    AddKernelCmdline(ctx, out);
    return out;
  }
  void PlanChange(const BootContext& ctx, const CmdlineChange& change, plan::Plan& plan) const override {
    // Refused: creating /etc/kernel/cmdline (kernel-install would otherwise reuse /proc/cmdline).
    if (!EditFile(
            ctx, kKernelCmdlinePath,
            [&](std::string_view c) { return SetKernelCmdlineFile(c, change.add, change.remove); }, kSetupCmdlineReason,
            plan))
      plan.refused.push_back({"", "/etc/kernel/cmdline is missing: create it from /proc/cmdline first", ""});
    AddState(ctx, change, plan);
    AddRegen(plan, plan::Regenerator::kKernelInstall, {"add-all"},
             "boot entries / UKIs carry the command line and are rebuilt from /etc/kernel/cmdline");
  }
};

}  // namespace

const Setup& SystemdBootCmdlineSetup() {
  static const KernelInstallSetup kSetup;
  return kSetup;
}

}  // namespace rocmtune::boot
