// cmdline backend: kernel command-line options, edited where this system's boot setup keeps
// them (decided from evidence by detect/boot_setup; each setup's files, reader, regenerator and
// refusals are one class behind boot/setup.h). The backend decides which tokens change;
// the setup where they are written.
// Token edits keep every other token and its order. A token the next boot already has with the
// wanted value is the admin's and is not written; one with another value is replaced in place and
// remembered, so unset/reset put it back (cmdline_owned.h, var/lib/rocmtune/cmdline-tokens).
#pragma once

#include <memory>

#include "knobs/backend.h"

namespace rocmtune::knobs {

// The cmdline backend, for the registry (knobs/registry.cc) — the only place that makes backends.
std::unique_ptr<Backend> MakeCmdlineBackend();

// Whether rocmtune put `key` (a kernel parameter: "iommu", "amdgpu.noretry") on the command line.
bool OwnsCmdlineKey(const KnobContext& ctx, std::string_view key);

}  // namespace rocmtune::knobs
