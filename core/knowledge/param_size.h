// Size parameters (catalog `unit`): how many bytes one count is, which values mean "auto", and
// a value's size in bytes. Pure data; what the machine's RAM makes of a size is knobs/size_checks.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "knowledge/catalog.h"

namespace rocmtune::knowledge {

// PAGE_SIZE on x86-64, the only architecture ROCm supports: 1 << PAGE_SHIFT with PAGE_SHIFT 12
// (arch/x86/include/asm/page_types.h). TTM counts pages_limit, page_pool_size and
// dma32_pages_limit in it (drivers/gpu/drm/ttm/ttm_tt.c ttm_tt_populate(), ttm_pool.c).
inline constexpr uint64_t kPageBytes = 4096;
// amdgpu_ttm.c amdgpu_ttm_init(): gtt_size = (uint64_t)amdgpu_gtt_size << 20.
inline constexpr uint64_t kMibBytes = 1ULL << 20;

uint64_t UnitBytes(SizeUnit unit);
// For JSON ("page", "MiB") and for sentences ("pages of 4 KiB", "MiB").
std::string_view UnitName(SizeUnit unit);
std::string_view UnitPhrase(SizeUnit unit);

struct ParamSize {
  enum class Kind {
    kAuto,      // the default sentinel (ttm 0, gttsize -1): the kernel computes the size
    kBytes,     // `bytes` holds the size
    kNegative,  // a negative count other than the sentinel: no size at all
    kOverflow,  // count * unit does not fit in 64 bits: more than any machine has
  };
  Kind kind = Kind::kAuto;
  uint64_t bytes = 0;
};

// The size `value` (a decimal integer as ValidateValue gives it) stands for; nullopt when the
// parameter is not a size or the value is not a number.
std::optional<ParamSize> SizeOf(const ModuleParam& param, std::string_view value);

// Bytes of a value when it is a plain size (kBytes); nullopt otherwise (auto, unknown, not a size).
std::optional<uint64_t> SizeBytes(const ModuleParam& param, std::string_view value);

}  // namespace rocmtune::knowledge
