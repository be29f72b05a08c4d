// `set`/`unset KEY --admin-lines`: the admin's lines that set an environment variable or an
// amdgpu/ttm module option, each turned into a comment by one op (plan/admin_lines.h has the
// files and the commented form), and `reset`'s ops that put every such line back. Only a line
// that sets the one variable (option) and nothing else, alone on its line, in a regular file of
// /etc/environment, /etc/environment.d/*.conf or /etc/profile.d/*.sh (/etc/modprobe.d/*.conf for
// an option), one per file: anything else is refused naming file:line (and the other options a
// modprobe.d line sets), so the admin edits it by hand. The helper checks every such op again
// (helper/admin_line_rules.cc).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "knobs/backend.h"
#include "knobs/env_sources.h"
#include "plan/admin_lines.h"
#include "plan/plan.h"
#include "sys/kmod_config.h"
#include "util/result.h"

namespace rocmtune::knobs {

// The one variable line `number` (1-based) of `content` sets, when it sets that one alone and
// does nothing else, and the line is not the continuation of the line before (a shell script);
// else an error saying what the line does. For modprobe.d, "module.param" of an `options` line
// of amdgpu, ttm or amdttm that sets that one option, without a backslash or an unclosed quote
// (either reaches into other lines as libkmod reads them). Planner and helper ask the same.
Result<std::string> SoleAssignment(plan::AdminLineFile kind, std::string_view content, size_t number);

// Why the line of `setting` cannot be commented out (an error whose message names file:line),
// or nothing when it can. `content` is its whole file.
Result<void> CheckCommentable(const sys::Root& root, const EnvSetting& setting, std::string_view content);

// The same for a module option of modprobe.d (its file and line, as ReadModprobeConfig gives).
Result<void> CheckModuleCommentable(const sys::Root& root, const sys::ModuleOption& option, std::string_view content);

// The ops that comment out every admin line setting `name` (from `settings`, the foreign
// assignments of that name), one per file; refusals (one per line that cannot be) go to `plan`.
void PlanCommentOut(const sys::Root& root, std::string_view name, const std::vector<EnvSetting>& settings,
                    plan::Plan& plan);

// The ops that comment out every modprobe.d line (from `config`) that sets `module`.`name`
// outside rocmtune's drop-in, one per file; refusals naming file:line go to `plan` (a line in
// /usr/lib/modprobe.d is a package's). Whether any op was planned.
bool PlanCommentOutModule(const sys::Root& root, std::string_view module, std::string_view name,
                          const sys::ModprobeConfig& config, plan::Plan& plan);

// `reset`: for every admin file holding lines rocmtune commented out, one op restoring them
// all. `keys` gets the key (env.NAME, module.param) of each restored line.
void PlanRestoreAdminLines(const sys::Root& root, plan::Plan& plan, std::vector<std::string>& keys);

}  // namespace rocmtune::knobs
