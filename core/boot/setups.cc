// What the boot setups share (setup_edits.h), the interface's defaults, and the one ordered list
// of setups SetupFor looks in. The setups, one class per file: grub_debian_setup.cc,
// grub_setup.cc, grub_bls_setup.cc, systemd_boot_setup.cc, kernelstub_setup.cc, and the ostree
// ones (rpm-ostree, bootc) in ostree_setups.cc.
#include <algorithm>
#include <array>
#include <memory>

#include <fmt/format.h>

#include "boot/cmdline_tokens.h"
#include "boot/grub_config.h"
#include "boot/kernelstub_setup.h"
#include "boot/ostree_setups.h"
#include "boot/setup.h"
#include "boot/setup_edits.h"
#include "boot/trial_setups.h"
#include "plan/owned_paths.h"
#include "plan/plan.h"
#include "util/text.h"

namespace rocmtune::boot {

void AddFileOp(const BootContext& ctx, plan::BackendId backend, std::string_view path, std::optional<std::string> after,
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

constexpr std::string_view kSetupStateReason = "what rocmtune added or replaced, so it undoes only that";

void AddRegen(plan::Plan& plan, plan::Regenerator regenerator, std::vector<std::string> args, std::string reason) {
  plan.ops.push_back(RegenOp(regenerator, std::move(args), std::move(reason)));
  plan.bootloader = plan::Regen::kPending;
}

plan::Op GrubCfgRegen(const BootContext& ctx, std::string reason) {
  bool update_grub = ctx.root.Exists("usr/sbin/update-grub");
  return RegenOp(update_grub ? plan::Regenerator::kUpdateGrub : plan::Regenerator::kGrubMkconfig,
                 update_grub ? std::vector<std::string>{} : std::vector<std::string>{"-o", "/boot/grub/grub.cfg"},
                 std::move(reason));
}

void AddState(const BootContext& ctx, const CmdlineChange& change, plan::Plan& plan) {
  AddFileOp(ctx, plan::BackendId::kCmdline, plan::kCmdlineTokensState, change.state, std::string(kSetupStateReason),
            plan);
}

std::vector<std::string> BlsEntries(const sys::Root& root) {
  std::vector<std::string> out;
  if (auto names = root.ListDir(kBlsEntriesDir))
    for (const std::string& n : *names)
      if (n.ends_with(".conf")) out.push_back(sys::JoinPath(kBlsEntriesDir, n));
  return out;
}

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

void AddGrubVar(const BootContext& ctx, bool linux_default, std::vector<std::pair<std::string, std::string>>& out) {
  auto vars = EvaluateGrubDefaults(ctx.root, false);
  if (!vars) return;
  const auto& value = linux_default ? vars->linux_default : vars->linux;
  if (value) out.emplace_back(std::string(kGrubDefaultsPath), *value);
}

void AddKernelCmdline(const BootContext& ctx, std::vector<std::pair<std::string, std::string>>& out) {
  if (auto content = ReadOptional(ctx.root, kKernelCmdlinePath))
    out.emplace_back(std::string(kKernelCmdlinePath), *content);
}

bool HasGrubby(const sys::Root& root) { return root.Exists("usr/sbin/grubby") || root.Exists("usr/bin/grubby"); }

std::vector<OwnedToken> Setup::Owned(const BootContext& ctx) const {
  if (auto content = ReadOptional(ctx.root, plan::kCmdlineTokensState)) return ParseTokensState(*content);
  return {};
}

// Every setup overrides them (trial_grub.cc, trial_bls.cc); a new one refuses until it does.
std::optional<std::string> Setup::RefuseTrial(const BootContext& /*ctx*/) const {
  return fmt::format("trial boots are not implemented for the {} boot setup yet", detect::BootKindName(Kind()));
}

void Setup::PlanTrial(const BootContext& ctx, const TrialBoot& /*trial*/, plan::Plan& plan) const {
  if (auto why = RefuseTrial(ctx)) plan.refused.push_back({"", *why, ""});
}

void Setup::PlanTrialCleanup(const BootContext& /*ctx*/, plan::Plan& /*plan*/) const {}

Result<std::string> Setup::RenderTrialEntry(const sys::Root& root, std::string_view path,
                                            const TrialBoot& trial) const {
  if (auto entry = TrialEntry(root, path, trial)) return std::move(*entry);
  return Fail(ErrorCode::kInvalidArgument,
              fmt::format("/{} is not the trial entry of the {} boot setup", path, detect::BootKindName(Kind())));
}

namespace {

NextBoot ComputeNextBoot(const BootContext& ctx) {
  const Setup* setup = SetupFor(ctx.inventory.system.boot.kind);
  if (!setup) {
    const std::string& why = ctx.inventory.system.boot.why_unknown;
    NextBoot next;
    next.why_unknown = why.empty() ? "the boot setup is unknown" : fmt::format("the boot setup is unknown: {}", why);
    return next;
  }
  return setup->ReadNextBoot(ctx);
}

}  // namespace

const NextBoot& ReadNextBoot(const BootContext& ctx) {
  if (!ctx.next_boot) ctx.next_boot = std::make_shared<const NextBoot>(ComputeNextBoot(ctx));
  return *ctx.next_boot;
}

std::optional<std::string> NextBootCmdline(const BootContext& ctx, std::string* why_unknown) {
  const NextBoot& next = ReadNextBoot(ctx);
  if (!next.cmdline && why_unknown) *why_unknown = next.why_unknown;
  return next.cmdline;
}

// The setups, in one ordered list (power-profiles-daemon's objects[]): each says its own kind.
const Setup* SetupFor(std::optional<detect::BootKind> kind) {
  static const std::array<const Setup*, 7> kSetups = {
      &GrubDebianCmdlineSetup(), &GrubCmdlineSetup(),  &GrubBlsCmdlineSetup(),   &SystemdBootCmdlineSetup(),
      &RpmOstreeCmdlineSetup(),  &BootcCmdlineSetup(), &KernelstubCmdlineSetup()};
  if (!kind) return nullptr;
  auto it = std::find_if(kSetups.begin(), kSetups.end(), [&](const Setup* s) { return s->Kind() == *kind; });
  return it == kSetups.end() ? nullptr : *it;
}

Result<std::string> RenderTrialEntry(const sys::Root& root, detect::BootKind kind, std::string_view path,
                                     const TrialBoot& trial) {
  const Setup* setup = SetupFor(kind);
  if (!setup)
    return Fail(ErrorCode::kInvalidArgument, fmt::format("/{}: no boot setup {}", path, detect::BootKindName(kind)));
  return setup->RenderTrialEntry(root, path, trial);
}

}  // namespace rocmtune::boot
