// The part of amd-smi's C API (libamd_smi, <amd_smi/amdsmi.h>) rocmtune calls, declared here:
// Debian 12 packages neither the library nor its header. Each declaration is the one in
// ROCm/amdsmi include/amd_smi/amdsmi.h at 0ceca28 (library 24.7, ROCm 6.2/6.3) and is unchanged
// in ROCm/rocm-systems projects/amdsmi/include/amd_smi/amdsmi.h (2026, library 26.x); only what
// both agree on is read (sys/amd_smi.cc says what is left unknown and why).
#pragma once

#include <cstddef>
#include <cstdint>

namespace rocmtune::sys::amdsmi {

using Status = int;                    // amdsmi_status_t
inline constexpr Status kSuccess = 0;  // AMDSMI_STATUS_SUCCESS

using Handle = void*;  // amdsmi_socket_handle, amdsmi_processor_handle

// amdsmi_init_flags_t: AMDSMI_INIT_AMD_GPUS = (1 << 1). GPUs only: CPU init can hang on an unhealthy
// HSMP driver (rocm-systems PR 6775).
inline constexpr uint64_t kInitAmdGpus = 1U << 1;

// amdsmi_fw_block_t values (an int-sized enum) of the firmware rocmtune reports, as amd-smi's own
// amdsmi_get_fw_info maps them to rocm-smi-lib's blocks (src/amd_smi/amd_smi.cc, 0ceca28):
// CP_MEC1 -> MEC, RLC, SDMA0 -> SDMA, PM -> SMC, PSP_SOSDRV -> SOS, VCN.
inline constexpr int kFwCpMec1 = 7;
inline constexpr int kFwRlc = 9;
inline constexpr int kFwSdma0 = 10;
inline constexpr int kFwVcn = 18;
inline constexpr int kFwPspSosdrv = 30;
inline constexpr int kFwPm = 77;  // after RLC_SRLS, before DMCU in both headers

// amdsmi_fw_info_t: `uint8_t num_fw_info; struct { amdsmi_fw_block_t fw_id; uint64_t fw_version;
// uint64_t reserved[2]; } fw_info_list[AMDSMI_FW_ID__MAX]; uint32_t reserved[7];`. The list's
// length (AMDSMI_FW_ID__MAX) grows between releases; the caller's buffer is larger than any.
struct FwEntry {
  int fw_id;
  uint64_t fw_version;
  uint64_t reserved[2];
};
struct FwInfo {
  uint8_t num_fw_info;
  FwEntry fw_info_list[256];
  uint32_t reserved[7];
};
static_assert(offsetof(FwInfo, fw_info_list) == 8 && sizeof(FwEntry) == 32);

// amdsmi_error_count_t: correctable_count, uncorrectable_count, deferred_count, reserved[5].
struct ErrorCount {
  uint64_t correctable_count;
  uint64_t uncorrectable_count;
  uint64_t deferred_count;
  uint64_t reserved[5];
};

// amdsmi_version_t is {year, major, minor, release, build} in 24.x and {major, minor, release,
// build} later: `build` (the version as text) is at the same offset in both.
struct Version {
  uint32_t words[4];
  const char* build;
};
static_assert(offsetof(Version, build) == 16);

// amdsmi_gpu_block_t bits (the same as rocm-smi-lib's rsmi_gpu_block_t for these), passed as the
// enum's 64-bit type.
inline constexpr uint64_t kBlockUmc = 0x1;
inline constexpr uint64_t kBlockSdma = 0x2;
inline constexpr uint64_t kBlockGfx = 0x4;

// The functions, as amdsmi.h declares them.
using InitFn = Status (*)(uint64_t init_flags);
using ShutDownFn = Status (*)();
using StatusStringFn = Status (*)(Status status, const char** status_string);
using LibVersionFn = Status (*)(Version* version);
using SocketHandlesFn = Status (*)(uint32_t* socket_count, Handle* socket_handles);
using ProcessorHandlesFn = Status (*)(Handle socket_handle, uint32_t* processor_count, Handle* processor_handles);
using BdfIdFn = Status (*)(Handle processor_handle, uint64_t* bdfid);
using FwInfoFn = Status (*)(Handle processor_handle, FwInfo* info);
using EccEnabledFn = Status (*)(Handle processor_handle, uint64_t* enabled_blocks);
using EccCountFn = Status (*)(Handle processor_handle, uint64_t block, ErrorCount* ec);
using ReplayCounterFn = Status (*)(Handle processor_handle, uint64_t* counter);

}  // namespace rocmtune::sys::amdsmi
