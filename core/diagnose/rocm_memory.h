// The GPU memory a ROCm program can allocate, in the numbers KFD uses, not the ones the driver's
// sysfs files show. KFD (amdgpu_amdkfd_gpuvm.c) refuses an allocation beyond its limits:
//   VRAM                 the device's memory (mem_info_vram_total; an APU's BIOS carve-out);
//   system memory        GTT-backed and userptr allocations count against
//                        max_system_mem_limit = RAM - RAM/64 - 1.5 GiB (AMDGPU_RESERVE_MEM_LIMIT,
//                        3UL << 29; half of it below 3 GiB) and, for GTT, against
//                        max_ttm_mem_limit = ttm_tt_pages_limit() << PAGE_SHIFT: TTM's
//                        pages_limit (amdttm's under amdgpu-dkms), half of RAM by default;
//   the GTT domain       amdgpu's GTT manager (mem_info_gtt_total: amdgpu.gttsize, else since
//                        6.5 the same pages_limit).
// So amdgpu.gttsize=126976 on a 128 GiB Strix Halo shows 124 GiB of GTT while KFD still stops
// ROCm at TTM's limit (about 62 GiB): the GTT a program gets is the smallest of the three.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "detect/inventory.h"
#include "sys/root.h"

namespace rocmtune::diagnose {

struct RocmMemory {
  std::optional<uint64_t> vram_bytes;          // mem_info_vram_total
  std::optional<uint64_t> gtt_bytes;           // mem_info_gtt_total: amdgpu's GTT domain
  std::optional<uint64_t> ttm_limit_bytes;     // pages_limit x 4 KiB of the TTM module in use
  std::string ttm_module;                      // "ttm", or "amdttm" under amdgpu-dkms; "" unknown
  std::optional<uint64_t> system_limit_bytes;  // KFD's max_system_mem_limit from MemTotal
  // The smallest of GTT, the TTM limit and KFD's system limit: system memory ROCm can allocate.
  std::optional<uint64_t> gtt_allocatable_bytes;
  // VRAM plus, for an APU (whose memory is system memory), gtt_allocatable_bytes.
  std::optional<uint64_t> allocatable_bytes;
  // What caps gtt_allocatable_bytes: "ttm.pages_limit", "amdttm.pages_limit", "gtt" (amdgpu's GTT
  // domain: amdgpu.gttsize or the driver's default), "ram" (KFD's system limit); "" unknown.
  std::string limited_by;
  std::vector<std::string> evidence;  // what was read, for a person
  std::string unknown;                // why allocatable_bytes is not known; empty when it is
};

// What every GPU's memory depends on, the same for each: the TTM module in use and its
// pages_limit, and MemTotal. Read once per request (63 partitions read them once, not 63 times).
struct SystemMemory {
  std::string ttm_module;             // "ttm", "amdttm" (amdgpu-dkms); "" when neither is readable
  std::optional<uint64_t> ttm_pages;  // its pages_limit
  std::optional<uint64_t> ram_bytes;  // /proc/meminfo MemTotal
};
SystemMemory ReadSystemMemory(const sys::Root& root);

// One GPU's memory as ROCm sees it: the device's mem_info files beneath the root, and `system`.
RocmMemory RocmMemoryOf(const sys::Root& root, const detect::Gpu& gpu, const SystemMemory& system);
// The same, reading `system` first.
RocmMemory RocmMemoryOf(const sys::Root& root, const detect::Gpu& gpu);

}  // namespace rocmtune::diagnose
