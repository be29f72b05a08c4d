// env backend: ROCm/HIP/PyTorch environment for users' programs, in two owned files:
// /etc/environment.d/90-rocmtune.conf (systemd user sessions, environment.d(5)) and
// /etc/profile.d/rocmtune.sh (login shells). Running processes keep their environment.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "knobs/backend.h"
#include "knobs/env_sources.h"
#include "plan/plan.h"

namespace rocmtune::knobs {

// The env backend, for the registry (knobs/registry.cc) — the only place that makes backends.
std::unique_ptr<Backend> MakeEnvBackend();

// What an HSA_OVERRIDE_GFX_VERSION written in a file (any file, rocmtune's own included) does to
// the GPUs here when it makes one run code of another ISA family (the RDNA1 + 10.3.0 crash):
// one message per GPU, naming the file and line. Nothing for another variable or an invalid value.
struct OverrideProblem {
  std::string gpu;  // the GPU id that would run another ISA's code
  plan::Message message;
};
std::vector<OverrideProblem> OverrideProblems(const KnobContext& ctx, const EnvSetting& setting);

// name -> value from rocmtune's environment.d file content.
std::map<std::string, std::string> ParseEnvironmentFile(std::string_view content);

}  // namespace rocmtune::knobs
