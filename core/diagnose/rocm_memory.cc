#include "diagnose/rocm_memory.h"

#include <algorithm>

#include <fmt/format.h>

#include "sys/meminfo.h"
#include "util/byte_size.h"
#include "util/text.h"

namespace rocmtune::diagnose {
namespace {

constexpr uint64_t kPage = 4096;           // PAGE_SHIFT 12 (x86-64, arm64 4K)
constexpr uint64_t kReserve = 3ULL << 29;  // AMDGPU_RESERVE_MEM_LIMIT, 1.5 GiB

std::optional<uint64_t> ReadNumber(const sys::Root& root, const std::string& rel) {
  auto text = root.ReadFile(rel, 4096);
  if (!text) return std::nullopt;
  return text::ParseU64(text::Trim(*text));
}

// amdgpu_amdkfd_gpuvm_init_mem_limits: RAM - RAM/64, less the reserve (halved instead on a
// machine with under 3 GiB).
uint64_t KfdSystemLimit(uint64_t ram) {
  uint64_t limit = ram - (ram >> 6);
  return limit < 2 * kReserve ? limit >> 1 : limit - kReserve;
}

}  // namespace

SystemMemory ReadSystemMemory(const sys::Root& root) {
  SystemMemory s;
  // amdgpu-dkms links amdgpu against its own amdttm; the in-kernel driver uses ttm.
  for (const char* module : {"amdttm", "ttm"}) {
    if (auto pages = ReadNumber(root, fmt::format("sys/module/{}/parameters/pages_limit", module))) {
      s.ttm_module = module;
      s.ttm_pages = pages;
      break;
    }
  }
  if (auto ram_kib = sys::MemTotalKib(root)) s.ram_bytes = *ram_kib * 1024;
  return s;
}

RocmMemory RocmMemoryOf(const sys::Root& root, const detect::Gpu& gpu) {
  return RocmMemoryOf(root, gpu, ReadSystemMemory(root));
}

RocmMemory RocmMemoryOf(const sys::Root& root, const detect::Gpu& gpu, const SystemMemory& system) {
  RocmMemory m;
  m.vram_bytes = gpu.vram_bytes;
  if (gpu.device_dir) {
    if (!m.vram_bytes) m.vram_bytes = ReadNumber(root, *gpu.device_dir + "/mem_info_vram_total");
    m.gtt_bytes = ReadNumber(root, *gpu.device_dir + "/mem_info_gtt_total");
  }
  if (m.gtt_bytes) m.evidence.push_back(fmt::format("amdgpu's GTT is {}", util::FormatBytes(*m.gtt_bytes)));
  if (system.ttm_pages) {
    m.ttm_module = system.ttm_module;
    m.ttm_limit_bytes = *system.ttm_pages * kPage;
    m.evidence.push_back(fmt::format("{}.pages_limit is {} pages ({})", m.ttm_module, *system.ttm_pages,
                                     util::FormatBytes(*m.ttm_limit_bytes)));
  }
  if (system.ram_bytes) {
    const uint64_t ram = *system.ram_bytes;
    m.system_limit_bytes = KfdSystemLimit(ram);
    m.evidence.push_back(fmt::format("RAM is {}: KFD's system memory limit {}", util::FormatBytes(ram),
                                     util::FormatBytes(*m.system_limit_bytes)));
  }
  struct Cap {
    std::optional<uint64_t> bytes;
    std::string name;
  };
  const std::vector<Cap> caps = {{m.ttm_limit_bytes, m.ttm_module.empty() ? "" : m.ttm_module + ".pages_limit"},
                                 {m.gtt_bytes, "gtt"},
                                 {m.system_limit_bytes, "ram"}};
  for (const Cap& c : caps) {
    if (!c.bytes) continue;
    // The first named wins a tie: GTT equal to the TTM limit is the driver's default following
    // it, and raising pages_limit is what raises both.
    if (!m.gtt_allocatable_bytes || *c.bytes < *m.gtt_allocatable_bytes) {
      m.gtt_allocatable_bytes = c.bytes;
      m.limited_by = c.name;
    }
  }
  if (!m.gtt_bytes || !m.ttm_limit_bytes) {
    m.unknown = !m.gtt_bytes ? "amdgpu's GTT size (mem_info_gtt_total) could not be read"
                             : "TTM's pages_limit (/sys/module/ttm/parameters) could not be read";
    m.gtt_allocatable_bytes.reset();
    m.limited_by.clear();
  }
  if (!gpu.apu.value_or(false)) {
    m.allocatable_bytes = m.vram_bytes;
    if (!m.vram_bytes) m.unknown = "the GPU's VRAM (mem_info_vram_total) could not be read";
    else m.unknown.clear();
    return m;
  }
  if (m.gtt_allocatable_bytes) m.allocatable_bytes = m.vram_bytes.value_or(0) + *m.gtt_allocatable_bytes;
  return m;
}

}  // namespace rocmtune::diagnose
