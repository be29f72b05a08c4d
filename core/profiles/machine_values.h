// Values a profile cannot spell out because they depend on the machine. A `set` value may
// be exactly one placeholder; EvaluateItems() replaces it from the root, or skips or refuses the item.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "knobs/knob_key.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::profiles {

// TTM pages (4 KiB) for a unified-memory APU: (MemTotal_GiB - max(8, MemTotal_GiB / 8)) GiB.
// rocmtune policy (leave the OS at least 8 GiB or an eighth), not an AMD number.
inline constexpr std::string_view kGttPagesPlaceholder = "{gtt_pages}";

bool IsPlaceholder(std::string_view value);
// True when the value has a '{' or '}' but is not a placeholder: a typo to refuse.
bool LooksLikePlaceholder(std::string_view value);

// Whole GiB of MemTotal (sys::MemTotalKib, rounded down) -> the pages_limit policy value. Fails when the
// result would not be above TTM's own default of half the RAM (small machines; kUnsupported).
Result<uint64_t> GttPagesFor(uint64_t mem_total_kib);

// Replaces a placeholder value; other values come back unchanged. kNotFound: MemTotal unknown.
Result<std::string> ExpandValue(std::string_view value, const sys::Root& root);

// amdgpu-dkms ships its own TTM as `amdttm`; with it loaded, amdgpu ignores ttm.* options.
// So ttm.X (module option or cmdline.ttm.X) becomes amdttm.X when sys/module/amdttm exists.
knobs::KnobKey TtmKeyForRoot(const knobs::KnobKey& key, const sys::Root& root);

}  // namespace rocmtune::profiles
