// `set`/`unset KEY --admin-lines`: the admin's lines that set an environment variable, each
// turned into a comment by one op (plan/admin_lines.h has the files and the commented form), and
// `reset`'s ops that put every such line back. Only a line that sets the one variable and nothing
// else, alone on its line, in a regular file of /etc/environment, /etc/environment.d/*.conf or
// /etc/profile.d/*.sh, one per file: anything else is refused naming file:line, so the admin
// edits it by hand. The helper checks every such op again (helper/admin_line_rules.cc).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "knobs/backend.h"
#include "knobs/env_sources.h"
#include "plan/admin_lines.h"
#include "plan/plan.h"
#include "util/result.h"

namespace rocmtune::knobs {

// The one variable line `number` (1-based) of `content` sets, when it sets that one alone and
// does nothing else, and the line is not the continuation of the line before (a shell script);
// else an error saying what the line does. Planner and helper (allow-list) ask the same.
Result<std::string> SoleAssignment(plan::AdminLineFile kind, std::string_view content, size_t number);

// Why the line of `setting` cannot be commented out (an error whose message names file:line),
// or nothing when it can. `content` is its whole file.
Result<void> CheckCommentable(const sys::Root& root, const EnvSetting& setting, std::string_view content);

// The ops that comment out every admin line setting `name` (from `settings`, the foreign
// assignments of that name), one per file; refusals (one per line that cannot be) go to `plan`.
void PlanCommentOut(const sys::Root& root, std::string_view name, const std::vector<EnvSetting>& settings,
                    plan::Plan& plan);

// `reset`: for every admin file holding lines rocmtune commented out, one op restoring them
// all. `keys` gets the variable of each restored line.
void PlanRestoreAdminLines(const sys::Root& root, plan::Plan& plan, std::vector<std::string>& keys);

}  // namespace rocmtune::knobs
