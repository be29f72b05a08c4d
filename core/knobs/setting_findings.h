// Settings already on the machine, whoever wrote them, checked by the rules `set` applies
// (issue 13 item 4): every module option in modprobe.d and on the kernel command line, every
// kernel command-line token in the boot configuration and /proc/cmdline, every ROCm/HIP/PyTorch
// environment variable in the environment files. Each problem is a finding with the file and
// line that holds it, what to do, and a source. `status` lists them; a profile's --check names
// the files that still hold them.
#pragma once

#include <vector>

#include "detect/finding.h"
#include "knobs/backend.h"

namespace rocmtune::knobs {

// amdgpu/ttm/amdttm options in every modprobe.d file and `amdgpu.x=` tokens (module_option_findings.cc).
std::vector<detect::Finding> ModuleOptionFindings(const KnobContext& ctx);
// Kernel command-line tokens rocmtune knows (iommu, amd_iommu, ...) (cmdline_token_findings.cc).
std::vector<detect::Finding> CmdlineTokenFindings(const KnobContext& ctx);
// ROCm/HIP/PyTorch variables in the environment files (env_setting_findings.cc).
std::vector<detect::Finding> EnvSettingFindings(const KnobContext& ctx);

// All of the above, in that order.
std::vector<detect::Finding> SettingFindings(const KnobContext& ctx);

}  // namespace rocmtune::knobs
