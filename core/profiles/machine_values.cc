#include "profiles/machine_values.h"

#include <algorithm>

#include <fmt/format.h>

#include "sys/meminfo.h"

namespace rocmtune::profiles {
namespace {

constexpr uint64_t kKibPerGib = 1024 * 1024;
constexpr uint64_t kPagesPerGib = 262144;  // 4 KiB pages: the unit of ttm/amdttm pages_limit

}  // namespace

bool IsPlaceholder(std::string_view value) { return value == kGttPagesPlaceholder; }

bool LooksLikePlaceholder(std::string_view value) {
  return !IsPlaceholder(value) && value.find_first_of("{}") != std::string_view::npos;
}

Result<uint64_t> GttPagesFor(uint64_t mem_total_kib) {
  uint64_t mem_gib = mem_total_kib / kKibPerGib;
  uint64_t reserve = std::max<uint64_t>(8, mem_gib / 8);
  // TTM's default limit is half the RAM (ttm_device.c ttm_global_init); a target at or
  // below it would shrink GTT, not grow it.
  if (mem_gib <= reserve || (mem_gib - reserve) * kKibPerGib <= mem_total_kib / 2)
    return Fail(ErrorCode::kUnsupported,
                fmt::format("MemTotal is {} GiB: leaving max(8 GiB, RAM/8) to the system gives no GTT above TTM's "
                            "default of half the RAM, so there is nothing to raise",
                            mem_gib));
  return (mem_gib - reserve) * kPagesPerGib;
}

Result<std::string> ExpandValue(std::string_view value, const sys::Root& root) {
  if (value != kGttPagesPlaceholder) return std::string(value);
  auto kib = sys::MemTotalKib(root);
  if (!kib)
    return Fail(ErrorCode::kNotFound,
                fmt::format("cannot compute {}: no usable MemTotal line in {}", value, root.Display("proc/meminfo")));
  auto pages = GttPagesFor(*kib);
  if (!pages) return tl::unexpected(pages.error());
  return std::to_string(*pages);
}

knobs::KnobKey TtmKeyForRoot(const knobs::KnobKey& key, const sys::Root& root) {
  bool ttm_option = key.kind == knobs::KnobKind::kModuleParam && key.module == "ttm";
  bool ttm_cmdline = key.kind == knobs::KnobKind::kCmdline && key.name.starts_with("ttm.");
  if ((!ttm_option && !ttm_cmdline) || !root.IsDirectory("sys/module/amdttm")) return key;
  knobs::KnobKey out = key;
  if (ttm_option) out.module = "amdttm";
  else out.name = "amd" + key.name;
  return out;
}

}  // namespace rocmtune::profiles
