// The helper's allow-list: every op of a plan is re-checked here, independently of the planner
// that made it, before anything is written. A plan comes from the daemon or from a client, so
// nothing in it is trusted: paths, contents, sysfs values and commands are each held to a fixed
// rule, and one violation refuses the whole plan (ARCHITECTURE.md "Security model").
// Each error message reads "<path>: <rule>: <why>", with <rule> one of the names below.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "detect/inventory.h"
#include "journal/journal.h"
#include "plan/plan.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::helper {

// One op against the allow-list; the error message names the op's path and the rule it breaks.
Result<void> CheckOp(const sys::Root& root, const detect::Inventory& inventory, const plan::Op& op);
// Every op; returns all violations (empty = the plan may run).
std::vector<Error> CheckPlan(const sys::Root& root, const detect::Inventory& inventory, const plan::Plan& plan);

// Undoing (undo_rules.cc): the step a rollback takes for one op of a journaled transaction —
// restore the file's `before` (`current` is what it holds now), remove what it created, write the
// attribute's recorded value, run the regenerator again with its inverse arguments — as an op of
// its own that passed CheckOp. A journal is a file on disk, not a plan anyone checked.
Result<plan::Op> UndoOp(const sys::Root& root, const detect::Inventory& inventory, const plan::Op& done,
                        const std::optional<std::string>& current);
// The file alone: a path a plan may name, owned by the op's backend (before anything is read).
Result<void> CheckFileTarget(const plan::Op& op);
// A directory the journal says the transaction created: removed (when empty) only when it lies
// on the way to one of the transaction's own files.
Result<void> CheckCreatedDir(const journal::Transaction& txn, std::string_view dir);

// The rules, as they appear in error messages.
namespace rule {
inline constexpr std::string_view kPlanRefused = "plan-refused";          // the planner itself refused
inline constexpr std::string_view kPlanSize = "plan-size";                // more ops than any real plan has
inline constexpr std::string_view kOpShape = "op-shape";                  // fields that do not fit the op kind
inline constexpr std::string_view kBackendMismatch = "backend-mismatch";  // backend is not the path's owner
inline constexpr std::string_view kPathSyntax = "path-syntax";            // not a normalized root-relative path
inline constexpr std::string_view kPathNotAllowed = "path-not-allowed";   // not an owned or shared file
inline constexpr std::string_view kPathSymlink = "path-symlink";          // a symlink (or non-dir) on the way
inline constexpr std::string_view kSharedFileRemoval = "shared-file-removal";
inline constexpr std::string_view kContentText = "content-text";           // NUL, size, not UTF-8
inline constexpr std::string_view kOwnedGrammar = "owned-file-grammar";    // a line the file's grammar lacks
inline constexpr std::string_view kModuleParam = "module-param";           // unknown amdgpu/ttm param or value
inline constexpr std::string_view kEnvVariable = "env-variable";           // unknown variable or bad value
inline constexpr std::string_view kShellSafe = "shell-safe";               // a character a shell would act on
inline constexpr std::string_view kGrubDropInShape = "grub-dropin-shape";  // not what the backend renders
inline constexpr std::string_view kServiceDropIn =
    "service-dropin";                                               // not rocmtune's drop-in, or starts another program
inline constexpr std::string_view kKernelToken = "kernel-token";    // added token not a valid option
inline constexpr std::string_view kRemovedToken = "removed-token";  // removed token rocmtune never adds
inline constexpr std::string_view kAdminToken = "admin-token";      // removes the admin's token unremembered
inline constexpr std::string_view kSharedBefore = "shared-before";  // `before` absent or not on disk
inline constexpr std::string_view kSharedOtherLine = "shared-other-line";  // edit outside the cmdline line
inline constexpr std::string_view kAdminLine = "admin-line";            // not exactly one line commented out / put back
inline constexpr std::string_view kAdminLineFile = "admin-line-file";   // not a regular root-owned file
inline constexpr std::string_view kSysfsDevice = "sysfs-device";        // not a GPU of the inventory
inline constexpr std::string_view kSysfsDriver = "sysfs-driver";        // uevent does not say amdgpu
inline constexpr std::string_view kSysfsAttribute = "sysfs-attribute";  // attribute not managed
inline constexpr std::string_view kSysfsValue = "sysfs-value";          // value not one the attr takes
inline constexpr std::string_view kRegenProgram = "regen-program";      // program not in the table
inline constexpr std::string_view kRegenArgv = "regen-argv";            // arguments not an allowed shape
inline constexpr std::string_view kTrialEntry = "trial-entry";          // not the entry rocmtune renders
inline constexpr std::string_view kIntent = "intent";  // the intent's or trial state's text is not of its format
}  // namespace rule

}  // namespace rocmtune::helper
