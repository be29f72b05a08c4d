// The environment of the one who runs rocmtunectl (diagnose::AssessOptions::caller_env): the
// ROCm variables of this process and the session and shell files of its user's home. doctor and
// check-compute answer for the programs this user starts, which inherit both.
#pragma once

#include <vector>

#include "knobs/env_sources.h"
#include "sys/root.h"

namespace rocmtune::client {

std::vector<knobs::EnvSetting> CallerEnvironment(const sys::Root& root);
// The caller's home directory, root-relative (from the root's passwd, else NSS on the live root).
std::string CallerHome(const sys::Root& root);

}  // namespace rocmtune::client
