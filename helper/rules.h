// The allow-list's rules, one small function each, shared by allow_list.cc (which routes an op
// to its rules and puts the op's path in front of the message) and the files that hold them.
// A rule fails with Error{code, 0, "<rule>: <why>"}; see allow_list.h for the rule names.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "detect/inventory.h"
#include "plan/admin_lines.h"
#include "plan/plan.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::helper {

[[nodiscard]] inline tl::unexpected<Error> Refuse(std::string_view rule, std::string_view why,
                                                  ErrorCode code = ErrorCode::kInvalidArgument) {
  std::string message(rule);
  message += ": ";
  message += why;
  return Fail(code, std::move(message));
}

// allow_list.cc
// Root-relative, normalized, short, with only the characters real paths here use.
Result<void> CheckPathSyntax(std::string_view path);
// Text from a plan as it may appear in a message: control and non-ASCII bytes escaped, cut after
// `max_bytes`.
std::string Printable(std::string_view text, size_t max_bytes);

// intent_rules.cc
// At most `max_bytes` of UTF-8 without a control character (a line of its own, shown as is).
Result<void> CheckFreeText(std::string_view text, size_t max_bytes, std::string_view what);
// The intent's fields, each to its format: a verb of the fixed set, profile and item names,
// the transaction a revert undoes, a trial's step and id, args bounded and without control bytes.
Result<void> CheckIntent(const plan::Intent& intent);
// The intent's profile (if any) exists: built in, or root's /etc/rocmtune/profiles/NAME.toml.
Result<void> CheckIntentProfile(const sys::Root& root, const plan::Intent& intent);

// content_rules.cc
// Far above any file rocmtune renders (a few hundred bytes; /etc/default/grub a few KiB), far
// below what would make the helper's memory or a boot-time parser a concern.
inline constexpr size_t kMaxContentBytes = 256 * 1024;
Result<void> CheckText(std::string_view content);
Result<void> CheckModprobeDropIn(std::string_view content);
Result<void> CheckEnvironmentDropIn(std::string_view content);
Result<void> CheckProfileDropIn(std::string_view content);
Result<void> CheckGrubDropIn(std::string_view content);
Result<void> CheckTokensState(std::string_view content);
Result<void> CheckRuntimeState(std::string_view content);
// power-profiles-daemon's drop-in (knobs/service_backend.h): byte for byte what rocmtune renders,
// starting a binary power-profiles-daemon is installed as, with plain options only.
Result<void> CheckPpdDropIn(std::string_view content);

// trial_state_rules.cc
// /var/lib/rocmtune/trial: a rocmtune.trial.v1 document whose tokens the helper would add itself.
Result<void> CheckTrialState(std::string_view content);

// kernel_token_rules.cc
// A token rocmtune may put on a kernel command line: a known kernel option or amdgpu/ttm
// parameter with a value the knowledge accepts.
Result<void> CheckAddedToken(std::string_view token);
// A token rocmtune may take off: one whose key it could have added (never root=, ro, ...).
Result<void> CheckRemovedToken(std::string_view token);
// Every token that `after` has and `before` lacks is added, every one it lost is removed.
// `removed` (when given) gets each removed token, once per removal.
Result<void> CheckTokenChange(std::string_view before_cmdline, std::string_view after_cmdline,
                              std::vector<std::string>* removed = nullptr);
// admin_token_rules.cc
// Every token a plan's shared-file edits remove is rocmtune's (a token the state file recorded
// before the plan) or the admin's token that the state file after the plan remembers as
// replaced: the admin's tokens are never dropped or overwritten unremembered.
Result<void> CheckAdminTokens(const sys::Root& root, const plan::Plan& plan);

// shared_file_rules.cc
enum class SharedFile { kGrubDefaults, kKernelCmdline, kBlsEntry };
Result<void> CheckSharedEdit(SharedFile kind, std::string_view before, std::string_view after,
                             std::vector<std::string>* removed = nullptr);
// allow_list.cc: which shared file `path` is, if one.
std::optional<SharedFile> SharedFileOf(std::string_view path);

// admin_line_rules.cc
// `after` is `before` with exactly one line commented out (plan::CommentOut), or with lines
// rocmtune commented out put back; each such line sets one variable rocmtune manages, alone.
// Any other byte that differs, a changed line count or line ending refuses.
Result<void> CheckAdminLineEdit(plan::AdminLineFile kind, std::string_view before, std::string_view after);
// The file exists, is a regular file reached without a symlink, owned by root (in a --root
// tree: by the tree's owner).
Result<void> CheckAdminFile(const sys::Root& root, std::string_view path);

// sysfs_rules.cc
Result<void> CheckSysfsOp(const sys::Root& root, const detect::Inventory& inventory, const plan::Op& op);
// The attribute alone (an inventory GPU's device directory, bound to amdgpu, a managed name),
// whatever the value.
Result<void> CheckSysfsTarget(const sys::Root& root, const detect::Inventory& inventory, const plan::Op& op);

// regenerator_rules.cc
Result<void> CheckRegenerateOp(const plan::Op& op);

// trial_boot_rules.cc: a trial boot's entry files (boot/trial_boot.h) and one-shot switches.
bool IsTrialEntryPath(std::string_view path);
// `op.after` is the entry rocmtune renders from the files under `root` now, for the trial its
// header names, whose tokens are each one rocmtune may add or the trial's panic=N / id.
Result<void> CheckTrialEntryWrite(const sys::Root& root, const plan::Op& op);
// The arguments after the program: only next_entry=rocmtune-trial set or next_entry unset in
// /boot/grub/grubenv (grub2-editenv: `-`), only `set-oneshot rocmtune-trial.conf` or `set-oneshot ""`.
Result<void> GrubEditenvArgs(std::span<const std::string> args);
Result<void> Grub2EditenvArgs(std::span<const std::string> args);
Result<void> BootctlArgs(std::span<const std::string> args);

// ostree_rules.cc: rpm-ostree's forms (plan/rpm_ostree_argv.h), the arguments after the program.
Result<void> RpmOstreeKargsArgs(std::span<const std::string> args);
Result<void> RpmOstreeInitramfsEtcArgs(std::span<const std::string> args);
// bootc's `loader-entries set-options-for-source --source rocmtune [--options TOKENS]` (plan/
// bootc_argv.h) with `before`, the options it replaces: every token of both one rocmtune may add.
Result<void> BootcOp(const plan::Op& op);

}  // namespace rocmtune::helper
