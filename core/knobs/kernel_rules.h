// Rules that changed across kernel releases. Each holds for the kernel versions it names (the
// running kernel of the inventory, major.minor) with the change that makes it true; outside the
// verified ranges the answer is "unknown for this kernel", never a guess. Stable backports move a
// change into older series at a point release rocmtune cannot tell from major.minor: those
// series answer unknown as well.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "knobs/effective.h"
#include "knowledge/catalog.h"

namespace rocmtune::knobs {

enum class Verdict { kNo, kYes, kUnknown };

using KernelMinor = std::pair<int, int>;  // {6, 14}

// Whether setting the parameter taints the running kernel (module_param_*_unsafe): the catalog's
// `taints`, from `taints_since` on where that is known. kUnknown when the kernel version is.
Verdict Taints(const knowledge::ModuleParam& param, const std::optional<std::string>& kernel_release);

// amdgpu_gmc_noretry_set() with noretry=-1: the value the driver picks for this GC on this kernel
// (0 = retry enabled, 1 = retry disabled); nullopt when that is not known for this kernel.
std::optional<int> NoretryAutoDefault(const GcVersion& gc, const std::optional<KernelMinor>& kernel);

// Where the noretry rule comes from, for messages.
inline constexpr const char* kNoretryRuleSource =
    "drivers/gpu/drm/amd/amdgpu/amdgpu_gmc.c amdgpu_gmc_noretry_set(); commit e47b0056a08d \"drm/amdgpu: set "
    "noretry=1 as default for GFX 10.1.x (Navi10/12/14)\" (mainline 7.1, Cc: stable: in 6.18.y and 7.0.y from "
    "a point release)";

}  // namespace rocmtune::knobs
