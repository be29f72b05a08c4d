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

// amdgpu_device_get_job_timeout_settings() without lockup_timeout, on bare metal: the timeout in ms
// of jobs on the kernel's own queues (drm_sched: Vulkan, OpenGL, Mesa's OpenCL, video; not KFD's
// user queues, which ROCm uses). nullopt for kernels before 6.11, where it is not verified.
struct LockupTimeouts {
  int gfx = 0, compute = 0, sdma = 0, video = 0;
  bool single_sets_all = false;  // one value sets every queue (from 6.19); before, the non-compute ones
};
std::optional<LockupTimeouts> LockupTimeoutDefaults(const std::optional<KernelMinor>& kernel);

inline constexpr const char* kLockupTimeoutSource =
    "drivers/gpu/drm/amd/amdgpu/amdgpu_device.c amdgpu_device_get_job_timeout_settings(); commit 1bea57ea7544 "
    "\"drm/amdgpu: reduce queue timeout to 2 seconds v2\" (amd-drm-next-6.19: 2000 ms for every queue); commit "
    "ec8fbb44b51e \"drm/amdgpu: make compute timeouts consistent\" (6.17: kernel compute queues only, \"OpenCL "
    "uses KFD user queues which don't have a timeout limitation\")";

}  // namespace rocmtune::knobs
