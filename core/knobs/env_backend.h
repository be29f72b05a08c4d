// env backend: ROCm/HIP/PyTorch environment for users' programs, in two owned files:
// /etc/environment.d/90-rocmtune.conf (systemd user sessions, environment.d(5)) and
// /etc/profile.d/rocmtune.sh (login shells). Running processes keep their environment.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "detect/finding.h"
#include "knobs/backend.h"

namespace rocmtune::knobs {

// The env backend, for the registry (knobs/registry.cc) — the only place that makes backends.
std::unique_ptr<Backend> MakeEnvBackend();

// Status findings: an HSA_OVERRIDE_GFX_VERSION, in any file, that makes a GPU here run code of
// another ISA family (the RDNA1 + 10.3.0 crash of the seeds).
std::vector<detect::Finding> EnvFindings(const KnobContext& ctx);

// name -> value from rocmtune's environment.d file content.
std::map<std::string, std::string> ParseEnvironmentFile(std::string_view content);

}  // namespace rocmtune::knobs
