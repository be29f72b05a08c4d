// ostree's staged deployment: what `rpm-ostree kargs`, `rpm-ostree upgrade` or `bootc
// loader-entries set-options-for-source` leave in /run/ostree/staged-deployment until ostree-
// finalize-staged.service writes its boot entry at shutdown (ostreedev/ostree
// src/libostree/ostree-sysroot-deploy.c, ostree_sysroot_stage_tree_with_options). A GVariant,
// read by GLib in rocmtune-archive.so (sys/staged_abi.h: its keys), loaded only when a staged
// deployment is there.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::sys {

inline constexpr std::string_view kStagedDeployment = "run/ostree/staged-deployment";
// ostree-sysroot-private.h _OSTREE_SYSROOT_RUNSTATE_STAGED_LOCKED: finalization locked.
inline constexpr std::string_view kStagedDeploymentLocked = "run/ostree/staged-deployment-locked";
// ostree writes a few hundred bytes plus the arguments; the kernel takes a command line of a
// few KiB (COMMAND_LINE_SIZE). Anything larger is not ostree's.
inline constexpr size_t kMaxStagedBytes = 1 << 16;

struct StagedDeployment {
  std::string name, osname;              // "target": "CSUM.SERIAL", the OS
  std::string merge_name, merge_osname;  // "merge-deployment"; empty: none
  // "kargs": the staged deployment's arguments; nullopt: the merge deployment's (ostree's
  // sysroot_finalize_deployment copies its `options` then).
  std::optional<std::vector<std::string>> kargs;
  std::map<std::string, std::string, std::less<>> bootconfig_extra;  // "bootconfig-extra"
  bool locked = false;                                               // "locked"

  // The deployment's directory beneath the physical root ("ostree/deploy/OS/deploy/NAME").
  std::string DeployDir() const;
};

// kInvalidData naming `path` and why (not a GVariant in normal form, a missing or wrongly typed
// key), kTooLarge past kMaxStagedBytes, kIo when the module cannot be loaded.
Result<StagedDeployment> ParseStagedDeployment(std::string_view bytes, std::string_view path);
// The file beneath `root` (kNotFound: nothing is staged). `locked` is also set by the lock file.
Result<StagedDeployment> ReadStagedDeployment(const Root& root);

}  // namespace rocmtune::sys
