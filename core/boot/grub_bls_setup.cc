// GRUB with BLS entries (grub-bls) behind boot::Setup (setup.h): grubby, or every entry's options.
#include <fmt/format.h>

#include "boot/cmdline_tokens.h"
#include "boot/grub_config.h"
#include "boot/setup_edits.h"
#include "boot/trial_setups.h"
#include "plan/owned_paths.h"
#include "plan/plan.h"

namespace rocmtune::boot {
namespace {

// GRUB reading Boot Loader Specification entries (Fedora, RHEL): every entry's options line (or
// grubby where installed), plus GRUB_CMDLINE_LINUX and /etc/kernel/cmdline for later kernels.
class GrubBlsSetup final : public Setup {
 public:
  detect::BootKind Kind() const override { return detect::BootKind::kGrubBls; }
  NextBoot ReadNextBoot(const BootContext& ctx) const override { return NextBootFromBls(ctx); }
  std::vector<std::pair<std::string, std::string>> EditedCmdlines(const BootContext& ctx) const override {
    std::vector<std::pair<std::string, std::string>> out;
    for (const std::string& entry : BlsEntries(ctx.root))
      if (auto content = ReadOptional(ctx.root, entry)) out.emplace_back(entry, BlsOptions(*content));
    if (ctx.root.Exists(kGrubDefaultsPath)) AddGrubVar(ctx, false, out);
    if (ctx.root.Exists(kKernelCmdlinePath)) AddKernelCmdline(ctx, out);
    return out;
  }
  std::optional<std::string> RefuseReplacing(const BootContext& ctx, std::string_view token) const override {
    if (!HasGrubby(ctx.root)) return std::nullopt;
    return fmt::format(
        "the BLS entries have the admin's {}; grubby edits them, and undoing a grubby change (revert, rollback) "
        "removes the option instead of putting {} back, so rocmtune leaves it: change it with grubby yourself",
        token, token);
  }
  void PlanChange(const BootContext& ctx, const CmdlineChange& change, plan::Plan& plan) const override {
    if (HasGrubby(ctx.root)) {
      // grubby owns the entries where it is installed (it also knows $kernelopts / grubenv
      // setups), so it makes the change; the plan says exactly what it will run.
      std::vector<std::string> argv = {"--update-kernel=ALL"};
      std::string args, removed;
      for (const auto& t : change.add) args += (args.empty() ? "" : " ") + t;
      for (const auto& k : change.remove) removed += (removed.empty() ? "" : " ") + k;
      if (!args.empty()) argv.push_back("--args=" + args);
      if (!removed.empty()) argv.push_back("--remove-args=" + removed);
      AddRegen(plan, plan::Regenerator::kGrubby, std::move(argv), "grubby updates every BLS entry's options");
    } else {
      for (const std::string& entry : BlsEntries(ctx.root))
        EditFile(
            ctx, entry, [&](std::string_view c) { return SetBlsOptions(c, change.add, change.remove); },
            "GRUB reads BLS entries directly: no grub.cfg to regenerate", plan);
    }
    EditFile(
        ctx, kGrubDefaultsPath,
        [&](std::string_view c) { return SetAssignmentTokens(c, kGrubCmdlineLinux, change.add, change.remove); },
        "kernels installed later take their options from here", plan);
    if (ctx.root.Exists(kKernelCmdlinePath))
      EditFile(
          ctx, kKernelCmdlinePath,
          [&](std::string_view c) { return SetKernelCmdlineFile(c, change.add, change.remove); },
          "kernel-install uses it for kernels installed later", plan);
    AddState(ctx, change, plan);
  }
  std::optional<std::string> RefuseTrial(const BootContext& ctx) const override { return RefuseGrubBlsTrial(ctx); }
  void PlanTrial(const BootContext& ctx, const TrialBoot& trial, plan::Plan& plan) const override {
    PlanGrubBlsTrial(ctx, trial, plan);
  }
  void PlanTrialCleanup(const BootContext& ctx, plan::Plan& plan) const override { PlanGrubBlsTrialCleanup(ctx, plan); }
  std::optional<Result<std::string>> TrialEntry(const sys::Root& root, std::string_view path,
                                                const TrialBoot& trial) const override {
    return GrubBlsTrialEntryAt(root, path, trial);
  }
};

}  // namespace

const Setup& GrubBlsCmdlineSetup() {
  static const GrubBlsSetup kSetup;
  return kSetup;
}

}  // namespace rocmtune::boot
