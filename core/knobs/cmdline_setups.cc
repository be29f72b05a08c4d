// The four boot setups behind knobs::CmdlineSetup (cmdline_setup.h), one class each; the ostree
// ones (rpm-ostree, bootc) are in ostree_setups.cc, kernelstub's in kernelstub_setup.cc.
#include <fmt/format.h>

#include "knobs/cmdline_backend.h"
#include "knobs/cmdline_setup.h"
#include "knobs/cmdline_tokens.h"
#include "knobs/grub_config.h"
#include "knobs/kernelstub_setup.h"
#include "knobs/ostree_setups.h"
#include "knobs/trial_setups.h"
#include "plan/owned_paths.h"
#include "plan/plan.h"
#include "util/text.h"

namespace rocmtune::knobs {

void AddFileOp(const KnobContext& ctx, plan::BackendId backend, std::string_view path, std::optional<std::string> after,
               std::string reason, plan::Plan& plan) {
  plan::Op op;
  op.backend = backend;
  op.path = std::string(path);
  op.before = ReadOptional(ctx.root, path);
  op.after = std::move(after);
  op.kind = op.after ? plan::OpKind::kWriteFile : plan::OpKind::kRemoveFile;
  op.reason = std::move(reason);
  if (op.before == op.after) return;
  plan.ops.push_back(std::move(op));
}

plan::Op RegenOp(plan::Regenerator regenerator, std::vector<std::string> args, std::string reason) {
  const plan::RegeneratorRow& row = plan::Row(regenerator);
  plan::Op op;
  op.kind = plan::OpKind::kRegenerate;
  op.backend = row.backend;
  op.path = std::string(row.name);
  op.argv = {std::string(row.program)};
  op.argv.insert(op.argv.end(), std::make_move_iterator(args.begin()), std::make_move_iterator(args.end()));
  op.reason = std::move(reason);
  return op;
}

namespace {

constexpr std::string_view kDefaultVar = kGrubCmdlineLinuxDefault;
constexpr std::string_view kLinuxVar = kGrubCmdlineLinux;
constexpr std::string_view kReason = "kernel command line for the next boot";
constexpr std::string_view kStateReason = "what rocmtune added or replaced, so it undoes only that";

void AddRegen(plan::Plan& plan, plan::Regenerator regenerator, std::vector<std::string> args, std::string reason) {
  plan.ops.push_back(RegenOp(regenerator, std::move(args), std::move(reason)));
  plan.bootloader = plan::Regen::kPending;
}

constexpr std::string_view kGrubCfgReason = "grub.cfg sources the trial entry once 42_rocmtune is in it";

// update-grub where Debian's wrapper is installed, else grub-mkconfig -o /boot/grub/grub.cfg.
plan::Op GrubCfgRegen(const KnobContext& ctx, std::string reason) {
  bool update_grub = ctx.root.Exists("usr/sbin/update-grub");
  return RegenOp(update_grub ? plan::Regenerator::kUpdateGrub : plan::Regenerator::kGrubMkconfig,
                 update_grub ? std::vector<std::string>{} : std::vector<std::string>{"-o", "/boot/grub/grub.cfg"},
                 std::move(reason));
}

template <typename Edit>
bool EditFile(const KnobContext& ctx, std::string_view path, Edit edit, std::string_view reason, plan::Plan& plan) {
  auto before = ReadOptional(ctx.root, path);
  if (!before) return false;
  auto after = edit(*before);
  if (!after) {
    plan.refused.push_back({"", fmt::format("/{}: {}", path, after.error().message), ""});
    return false;
  }
  AddFileOp(ctx, plan::BackendId::kCmdline, path, *after, std::string(reason), plan);
  return true;
}

void AddState(const KnobContext& ctx, const CmdlineChange& change, plan::Plan& plan) {
  AddFileOp(ctx, plan::BackendId::kCmdline, plan::kCmdlineTokensState, change.state, std::string(kStateReason), plan);
}

std::vector<std::string> BlsEntries(const sys::Root& root) {
  std::vector<std::string> out;
  if (auto names = root.ListDir(kBlsEntriesDir))
    for (const std::string& n : *names)
      if (n.ends_with(".conf")) out.push_back(sys::JoinPath(kBlsEntriesDir, n));
  return out;
}

// The values of a BLS entry's `options` lines, as one command line.
std::string BlsOptions(std::string_view entry) {
  std::string out;
  for (std::string_view line : text::SplitLines(entry)) {
    line = text::Trim(line);
    if (!line.starts_with("options") || (line.size() > 7 && line[7] != ' ' && line[7] != '\t')) continue;
    out += ' ';
    out += text::Trim(line.substr(7));
  }
  return out;
}

// GRUB_CMDLINE_LINUX_DEFAULT (`linux_default`) or GRUB_CMDLINE_LINUX of /etc/default/grub alone.
void AddGrubVar(const KnobContext& ctx, bool linux_default, std::vector<std::pair<std::string, std::string>>& out) {
  auto vars = EvaluateGrubDefaults(ctx.root, false);
  if (!vars) return;
  const auto& value = linux_default ? vars->linux_default : vars->linux;
  if (value) out.emplace_back(std::string(kGrubDefaultsPath), *value);
}

void AddKernelCmdline(const KnobContext& ctx, std::vector<std::pair<std::string, std::string>>& out) {
  if (auto content = ReadOptional(ctx.root, kKernelCmdlinePath))
    out.emplace_back(std::string(kKernelCmdlinePath), *content);
}

bool HasGrubby(const sys::Root& root) { return root.Exists("usr/sbin/grubby") || root.Exists("usr/bin/grubby"); }

// Debian and Ubuntu: grub-mkconfig (a Debian patch) sources /etc/default/grub.d/*.cfg, so
// rocmtune's tokens live in a drop-in of its own and no admin line is edited.
class GrubDebianSetup final : public CmdlineSetup {
 public:
  detect::BootKind Kind() const override { return detect::BootKind::kGrubDebian; }
  bool InPlace() const override { return false; }
  std::vector<OwnedToken> Owned(const KnobContext& ctx) const override {
    std::vector<OwnedToken> out;
    auto content = ReadOptional(ctx.root, plan::kGrubDropInPath);
    if (!content) return out;
    for (std::string& t : RocmtuneDropInTokens(*content, kDefaultVar).value_or(std::vector<std::string>{}))
      out.push_back({std::move(t), std::nullopt});
    return out;
  }
  std::vector<SetupFile> FilesRead() const override {
    return {{kGrubDefaultsPath, ""}, {"etc/default/grub.d", ".cfg"}};
  }
  NextBoot ReadNextBoot(const KnobContext& ctx) const override { return NextBootFromGrub(ctx, true); }
  std::vector<std::pair<std::string, std::string>> EditedCmdlines(const KnobContext& /*ctx*/) const override {
    return {};
  }
  void PlanChange(const KnobContext& ctx, const CmdlineChange& change, plan::Plan& plan) const override {
    if (change.tokens.empty()) {
      AddFileOp(ctx, plan::BackendId::kCmdline, plan::kGrubDropInPath, std::nullopt, std::string(kReason), plan);
    } else {
      auto text = RocmtuneDropIn(kDefaultVar, change.tokens);
      if (!text) {
        plan.refused.push_back({"", text.error().message, ""});
        return;
      }
      AddFileOp(ctx, plan::BackendId::kCmdline, plan::kGrubDropInPath, *text, std::string(kReason), plan);
    }
    plan.ops.push_back(GrubCfgRegen(ctx, "grub.cfg is generated from /etc/default/grub and its drop-ins"));
    plan.bootloader = plan::Regen::kPending;
  }
  std::optional<std::string> RefuseTrial(const KnobContext& ctx) const override { return RefuseGrubTrial(ctx); }
  void PlanTrial(const KnobContext& ctx, const TrialBoot& trial, plan::Plan& plan) const override {
    PlanGrubTrial(ctx, trial, GrubCfgRegen(ctx, std::string(kGrubCfgReason)), plan);
  }
  void PlanTrialCleanup(const KnobContext& ctx, plan::Plan& plan) const override { PlanGrubTrialCleanup(ctx, plan); }
};

// Upstream GRUB: only /etc/default/grub, edited token by token.
class GrubSetup final : public CmdlineSetup {
 public:
  detect::BootKind Kind() const override { return detect::BootKind::kGrub; }
  std::vector<SetupFile> FilesRead() const override { return {{kGrubDefaultsPath, ""}}; }
  NextBoot ReadNextBoot(const KnobContext& ctx) const override { return NextBootFromGrub(ctx, false); }
  std::vector<std::pair<std::string, std::string>> EditedCmdlines(const KnobContext& ctx) const override {
    std::vector<std::pair<std::string, std::string>> out;
    AddGrubVar(ctx, true, out);
    return out;
  }
  void PlanChange(const KnobContext& ctx, const CmdlineChange& change, plan::Plan& plan) const override {
    EditFile(
        ctx, kGrubDefaultsPath,
        [&](std::string_view c) { return SetAssignmentTokens(c, kDefaultVar, change.add, change.remove); }, kReason,
        plan);
    AddState(ctx, change, plan);
    AddRegen(plan, plan::Regenerator::kGrubMkconfig, {"-o", "/boot/grub/grub.cfg"},
             "grub.cfg is generated from /etc/default/grub");
  }
  std::optional<std::string> RefuseTrial(const KnobContext& ctx) const override { return RefuseGrubTrial(ctx); }
  void PlanTrial(const KnobContext& ctx, const TrialBoot& trial, plan::Plan& plan) const override {
    PlanGrubTrial(ctx, trial,
                  RegenOp(plan::Regenerator::kGrubMkconfig, {"-o", "/boot/grub/grub.cfg"}, std::string(kGrubCfgReason)),
                  plan);
  }
  void PlanTrialCleanup(const KnobContext& ctx, plan::Plan& plan) const override { PlanGrubTrialCleanup(ctx, plan); }
};

// GRUB reading Boot Loader Specification entries (Fedora, RHEL): every entry's options line (or
// grubby where installed), plus GRUB_CMDLINE_LINUX and /etc/kernel/cmdline for later kernels.
class GrubBlsSetup final : public CmdlineSetup {
 public:
  detect::BootKind Kind() const override { return detect::BootKind::kGrubBls; }
  NextBoot ReadNextBoot(const KnobContext& ctx) const override { return NextBootFromBls(ctx); }
  std::vector<std::pair<std::string, std::string>> EditedCmdlines(const KnobContext& ctx) const override {
    std::vector<std::pair<std::string, std::string>> out;
    for (const std::string& entry : BlsEntries(ctx.root))
      if (auto content = ReadOptional(ctx.root, entry)) out.emplace_back(entry, BlsOptions(*content));
    if (ctx.root.Exists(kGrubDefaultsPath)) AddGrubVar(ctx, false, out);
    if (ctx.root.Exists(kKernelCmdlinePath)) AddKernelCmdline(ctx, out);
    return out;
  }
  std::optional<std::string> RefuseReplacing(const KnobContext& ctx, std::string_view token) const override {
    if (!HasGrubby(ctx.root)) return std::nullopt;
    return fmt::format(
        "the BLS entries have the admin's {}; grubby edits them, and undoing a grubby change (revert, rollback) "
        "removes the option instead of putting {} back, so rocmtune leaves it: change it with grubby yourself",
        token, token);
  }
  void PlanChange(const KnobContext& ctx, const CmdlineChange& change, plan::Plan& plan) const override {
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
        [&](std::string_view c) { return SetAssignmentTokens(c, kLinuxVar, change.add, change.remove); },
        "kernels installed later take their options from here", plan);
    if (ctx.root.Exists(kKernelCmdlinePath))
      EditFile(
          ctx, kKernelCmdlinePath,
          [&](std::string_view c) { return SetKernelCmdlineFile(c, change.add, change.remove); },
          "kernel-install uses it for kernels installed later", plan);
    AddState(ctx, change, plan);
  }
  std::optional<std::string> RefuseTrial(const KnobContext& ctx) const override { return RefuseGrubBlsTrial(ctx); }
  void PlanTrial(const KnobContext& ctx, const TrialBoot& trial, plan::Plan& plan) const override {
    PlanGrubBlsTrial(ctx, trial, plan);
  }
  void PlanTrialCleanup(const KnobContext& ctx, plan::Plan& plan) const override { PlanGrubBlsTrialCleanup(ctx, plan); }
};

// systemd-boot and UKIs: kernel-install builds every entry from /etc/kernel/cmdline.
class KernelInstallSetup final : public CmdlineSetup {
 public:
  detect::BootKind Kind() const override { return detect::BootKind::kSystemdBoot; }
  bool ReadsEsp() const override { return true; }
  NextBoot ReadNextBoot(const KnobContext& ctx) const override { return NextBootFromLoaderEntry(ctx); }
  std::vector<std::pair<std::string, std::string>> EditedCmdlines(const KnobContext& ctx) const override {
    std::vector<std::pair<std::string, std::string>> out;
    AddKernelCmdline(ctx, out);
    return out;
  }
  void PlanChange(const KnobContext& ctx, const CmdlineChange& change, plan::Plan& plan) const override {
    // Refused: creating /etc/kernel/cmdline (kernel-install would otherwise reuse /proc/cmdline).
    if (!EditFile(
            ctx, kKernelCmdlinePath,
            [&](std::string_view c) { return SetKernelCmdlineFile(c, change.add, change.remove); }, kReason, plan))
      plan.refused.push_back({"", "/etc/kernel/cmdline is missing: create it from /proc/cmdline first", ""});
    AddState(ctx, change, plan);
    AddRegen(plan, plan::Regenerator::kKernelInstall, {"add-all"},
             "boot entries / UKIs carry the command line and are rebuilt from /etc/kernel/cmdline");
  }
  std::optional<std::string> RefuseTrial(const KnobContext& ctx) const override { return RefuseSdBootTrial(ctx); }
  void PlanTrial(const KnobContext& ctx, const TrialBoot& trial, plan::Plan& plan) const override {
    PlanSdBootTrial(ctx, trial, plan);
  }
  void PlanTrialCleanup(const KnobContext& ctx, plan::Plan& plan) const override { PlanSdBootTrialCleanup(ctx, plan); }
};

}  // namespace

std::vector<OwnedToken> CmdlineSetup::Owned(const KnobContext& ctx) const {
  if (auto content = ReadOptional(ctx.root, plan::kCmdlineTokensState)) return ParseTokensState(*content);
  return {};
}

// Every setup overrides them (trial_grub.cc, trial_bls.cc); a new one refuses until it does.
std::optional<std::string> CmdlineSetup::RefuseTrial(const KnobContext& /*ctx*/) const {
  return fmt::format("trial boots are not implemented for the {} boot setup yet", detect::BootKindName(Kind()));
}

void CmdlineSetup::PlanTrial(const KnobContext& ctx, const TrialBoot& /*trial*/, plan::Plan& plan) const {
  if (auto why = RefuseTrial(ctx)) plan.refused.push_back({"", *why, ""});
}

void CmdlineSetup::PlanTrialCleanup(const KnobContext& /*ctx*/, plan::Plan& /*plan*/) const {}

const CmdlineSetup* CmdlineSetupFor(std::optional<detect::BootKind> kind) {
  static const GrubDebianSetup kGrubDebian;
  static const GrubSetup kGrub;
  static const GrubBlsSetup kGrubBls;
  static const KernelInstallSetup kKernelInstall;
  if (!kind) return nullptr;
  switch (*kind) {
    case detect::BootKind::kGrubDebian: return &kGrubDebian;
    case detect::BootKind::kGrub: return &kGrub;
    case detect::BootKind::kGrubBls: return &kGrubBls;
    case detect::BootKind::kSystemdBoot: return &kKernelInstall;
    case detect::BootKind::kRpmOstree: return &RpmOstreeCmdlineSetup();
    case detect::BootKind::kBootc: return &BootcCmdlineSetup();
    case detect::BootKind::kKernelstub: return &KernelstubCmdlineSetup();
  }
  return nullptr;
}

}  // namespace rocmtune::knobs
