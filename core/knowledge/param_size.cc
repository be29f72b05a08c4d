#include "knowledge/param_size.h"

#include "util/byte_size.h"
#include "util/text.h"

namespace rocmtune::knowledge {

uint64_t UnitBytes(SizeUnit unit) { return unit == SizeUnit::kPage ? kPageBytes : kMibBytes; }

std::string_view UnitName(SizeUnit unit) { return unit == SizeUnit::kPage ? "page" : "MiB"; }

std::string_view UnitPhrase(SizeUnit unit) { return unit == SizeUnit::kPage ? "pages of 4 KiB" : "MiB"; }

std::optional<ParamSize> SizeOf(const ModuleParam& param, std::string_view value) {
  if (!param.unit) return std::nullopt;
  // The default is the "compute it" sentinel of every size parameter: ttm's 0 (ttm_tt_mgr_init(),
  // ttm_pool_mgr_init(): "if (!limit) limit = num_pages") and gttsize's -1 (amdgpu_ttm_init()).
  if (value == param.default_value) return ParamSize{ParamSize::Kind::kAuto, 0};
  if (value.starts_with('-')) {
    if (!text::ParseU64(value.substr(1))) return std::nullopt;
    return ParamSize{ParamSize::Kind::kNegative, 0};
  }
  auto count = text::ParseU64(value);
  if (!count) return std::nullopt;
  auto bytes = util::MultiplyBytes(*count, UnitBytes(*param.unit));
  if (!bytes) return ParamSize{ParamSize::Kind::kOverflow, 0};
  return ParamSize{ParamSize::Kind::kBytes, *bytes};
}

std::optional<uint64_t> SizeBytes(const ModuleParam& param, std::string_view value) {
  auto size = SizeOf(param, value);
  if (!size || size->kind != ParamSize::Kind::kBytes) return std::nullopt;
  return size->bytes;
}

}  // namespace rocmtune::knowledge
