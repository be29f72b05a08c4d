// The initramfs tools rocmtune knows, one row each in one table (ninja's kTools[]): the name in
// JSON and text, how it is detected, how it rebuilds the images and with which regenerator op
// (plan/plan.h Regenerator: the helper's allow-list checks that op's arguments on its own,
// helper/regenerator_rules.cc), what proves its image carries amdgpu, and how to rebuild one
// kernel's image by hand. detect/boot_setup.cc detects from it, boot/initramfs.cc plans from it,
// boot/boot_image.cc hints from it: none of them compares the tool by name.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string_view>

#include "plan/plan.h"

namespace rocmtune::detect {

enum class InitramfsKind {
  kInitramfsTools,         // Debian, Ubuntu
  kDracut,                 // Fedora, RHEL, openSUSE
  kMkinitcpio,             // Arch
  kBooster,                // booster
  kRpmOstreeInitramfsEtc,  // ostree deployments managed by rpm-ostree (detect/ostree_boot.cc)
};

// A configuration file naming `word` on a line that is not a comment proves the image carries amdgpu.
struct AmdgpuProof {
  std::string_view file;  // root-relative
  std::string_view word;
  std::string_view evidence;  // what the plan says
};

struct InitramfsToolRow {
  InitramfsKind kind;
  std::string_view name;
  // The first of these that exists decides (checked tool by tool in table order); none: the tool
  // is detected with its boot setup (rpm-ostree: detect/ostree_boot.cc).
  std::array<std::string_view, 2> evidence;
  plan::Regenerator regenerator;         // the op that rebuilds every image; its program is the row's
  std::array<std::string_view, 3> args;  // after the program (empty ones left out)
  std::array<AmdgpuProof, 2> proofs;     // the first that holds; none: cannot tell
  std::string_view one_kernel_hint;      // "{}" is the kernel version; empty: no such command
  // rpm-ostree carries /etc files into the image (`initramfs-etc --track`) instead of rebuilding
  // it: the ostree setup plans those ops (boot/ostree_setups.h AddRpmOstreeInitramfsEtc).
  bool tracks_etc_files = false;
};

std::span<const InitramfsToolRow> InitramfsTools();
const InitramfsToolRow& Row(InitramfsKind kind);

// The one conversion each way between an InitramfsKind and its name in JSON and text.
std::string_view InitramfsKindName(InitramfsKind kind);
std::optional<InitramfsKind> ParseInitramfsKind(std::string_view name);

}  // namespace rocmtune::detect
