// What the setups (setups.cc and one file per setup: grub_debian_setup.cc, grub_setup.cc,
// grub_bls_setup.cc, systemd_boot_setup.cc, kernelstub_setup.cc, ostree_setups.cc) share when
// they plan an edit: the reasons they give, an edit of one file, the state file, a regeneration,
// and what they read of GRUB, BLS entries and /etc/kernel/cmdline.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "boot/grub_config.h"
#include "boot/setup.h"
#include "boot/trial_setups.h"
#include "plan/plan.h"

namespace rocmtune::boot {

inline constexpr std::string_view kSetupCmdlineReason = "kernel command line for the next boot";
inline constexpr std::string_view kSetupGrubCfgReason = "grub.cfg sources the trial entry once 42_rocmtune is in it";

// A regeneration of the boot loader's files, pending until the helper runs it.
void AddRegen(plan::Plan& plan, plan::Regenerator regenerator, std::vector<std::string> args, std::string reason);
// update-grub where Debian's wrapper is installed, else grub-mkconfig -o /boot/grub/grub.cfg.
plan::Op GrubCfgRegen(const BootContext& ctx, std::string reason);
// plan::kCmdlineTokensState after `change` (cmdline_owned.h).
void AddState(const BootContext& ctx, const CmdlineChange& change, plan::Plan& plan);
std::vector<std::string> BlsEntries(const sys::Root& root);
// The values of a BLS entry's `options` lines, as one command line.
std::string BlsOptions(std::string_view entry);
// GRUB_CMDLINE_LINUX_DEFAULT (`linux_default`) or GRUB_CMDLINE_LINUX of /etc/default/grub alone.
void AddGrubVar(const BootContext& ctx, bool linux_default, std::vector<std::pair<std::string, std::string>>& out);
void AddKernelCmdline(const BootContext& ctx, std::vector<std::pair<std::string, std::string>>& out);
bool HasGrubby(const sys::Root& root);

// `path` edited by `edit` (content -> Result<content>); false when the file is missing. An edit
// that fails goes to plan.refused.
template <typename Edit>
bool EditFile(const BootContext& ctx, std::string_view path, Edit edit, std::string_view reason, plan::Plan& plan) {
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

// The setups of the files beside this one, for SetupFor's list (setups.cc).
const Setup& GrubDebianCmdlineSetup();
const Setup& GrubCmdlineSetup();
const Setup& GrubBlsCmdlineSetup();
const Setup& SystemdBootCmdlineSetup();

}  // namespace rocmtune::boot
