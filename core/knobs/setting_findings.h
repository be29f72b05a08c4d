// Settings already on the machine, whoever wrote them, checked by the rules `set` applies
//: every module option in modprobe.d and on the kernel command line, every
// kernel command-line token in the boot configuration and /proc/cmdline, every ROCm/HIP/PyTorch
// environment variable in the environment files. Each problem is a finding with the file and
// line that holds it, what to do, and a source. `status` lists them; a profile's --check names
// the files that still hold them.
#pragma once

#include <string_view>
#include <vector>

#include "detect/finding.h"
#include "knobs/backend.h"
#include "knobs/env_sources.h"

namespace rocmtune::knobs {

// amdgpu/ttm/amdttm options in every modprobe.d file and `amdgpu.x=` tokens (module_option_findings.cc).
std::vector<detect::Finding> ModuleOptionFindings(const KnobContext& ctx);
// Kernel command-line tokens rocmtune knows (iommu, amd_iommu, ...) (cmdline_token_findings.cc).
std::vector<detect::Finding> CmdlineTokenFindings(const KnobContext& ctx);
// ROCm/HIP/PyTorch variables in the environment files (env_setting_findings.cc).
std::vector<detect::Finding> EnvSettingFindings(const KnobContext& ctx);

// The same checks of the caller's own environment (env_sources.h: the process's variables, the
// user's session and shell files), for doctor and check-compute.
std::vector<detect::Finding> CallerEnvFindings(const KnobContext& ctx, const std::vector<EnvSetting>& caller);
// Whether data/env_vars.toml knows the name (checked, read by nobody, or a debugging switch):
// the only variables of a process that are looked at.
bool KnownEnvName(std::string_view name);

// All of the above, in that order.
std::vector<detect::Finding> SettingFindings(const KnobContext& ctx);

}  // namespace rocmtune::knobs
