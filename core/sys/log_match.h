// Which lines of the system log the reader keeps for the GPU fault parser, and how a kept message
// is bounded. A cheap prefilter, not the judgement: it keeps every line that may be part of an
// amdgpu/KFD event (and some that are not), so that the parser sees a fault's whole block; what is
// a fault is decided above (the fault records).
#pragma once

#include <string>
#include <string_view>

namespace rocmtune::sys {

// A kernel line about amdgpu, KFD or their DRM scheduler: it names amdgpu, kfd (amdkfd, kfd2kgd),
// DRM's prefix ("[drm] ", "[drm:mes_v11_0_submit_pkt_and_poll_completion...]": not the word drm
// alone, which "modprobe@drm.service" and "bus type drm_connector" have), a GPU memory hub
// (gfxhub, mmhub, gmc_v*: "gmc_v10_0_process_interrupt: 41 callbacks suppressed"), or a PASID (the
// old KFD "Evicting PASID 1 queues"), case-insensitively.
bool KernelLineMatters(std::string_view message);

// A service's line that is one of the ROCm runtime's fault forms: "Memory access fault by GPU
// node-N", "HW Exception by GPU node-N", an HSA_STATUS_ERROR_*, a hipError*, "MES failed",
// TensileLibrary (rocBLAS' missing kernels for a gfx target). Case-sensitive, as the runtime
// prints them.
bool ServiceLineMatters(std::string_view message);

// The first kMaxMessageBytes of `message` (cut at a UTF-8 character boundary), NULs replaced by
// spaces: a journal MESSAGE may be binary.
std::string BoundMessage(std::string_view message);

}  // namespace rocmtune::sys
