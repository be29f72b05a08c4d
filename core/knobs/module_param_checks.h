// The rules `set` applies to one module parameter (amdgpu, ttm, amdttm), in one place: the
// modprobe backend's Validate turns them into refusals and warnings of a plan, and the findings
// on settings already on the machine (setting_findings.h) into findings with a file and line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "detect/finding.h"
#include "knobs/backend.h"

namespace rocmtune::knobs {

enum class IssueLevel {
  kRefuse,              // never written: the kernel would ignore or reject it
  kRefuseUnlessForced,  // refused; --force writes it anyway (plan::Plan::needs_force)
  kWarn,                // written, with the warning
  kCannotCheck,         // a fact rocmtune cannot check here (not a problem of the setting)
  kNote,                // no problem: what the value means (a size in bytes), a plan note
};

struct SettingIssue {
  // Stable: "unknown-parameter", "invalid-value", "not-in-kernel", "no-effect", "deprecated",
  // "taints-kernel", "wrong-module", "cannot-check", and for sizes (size_checks.h)
  // "size-above-ram", "size-below-default", "size".
  std::string id;
  IssueLevel level = IssueLevel::kWarn;
  std::string message;
  std::string hint;    // what to do, may be empty
  std::string source;  // public citation, may be empty
};

// Issues of `key` (kModuleParam) set to `value` (nullopt: being removed, which only needs a known
// parameter) on this machine.
std::vector<SettingIssue> CheckModuleParam(const KnobContext& ctx, const KnobKey& key,
                                           const std::optional<std::string>& value);

// Adds an issue of `key_text` to a plan by its level: refused, needs_force, warnings, notes.
void AddToPlan(std::string key_text, SettingIssue issue, plan::Plan& plan);

// A finding ("module.<id>", a warning) for an issue of a setting written at file:line; nullopt
// for issues that are no problem of a setting already there (cannot-check, notes, taints-kernel: an
// admin may choose an unsafe parameter that does something).
std::optional<detect::Finding> ModuleIssueFinding(SettingIssue issue, const KnobKey& key, std::string_view file,
                                                  int line);

// The kernel's answer to an option it has no parameter for, cited by unknown-parameter issues.
inline constexpr const char* kUnknownParamSource =
    "kernel/module/main.c unknown_module_param_cb() (\"unknown parameter '...' ignored\"); "
    "kernel/params.c parse_args()";

}  // namespace rocmtune::knobs
