#include "util/byte_size.h"

#include <array>
#include <limits>
#include <string_view>

#include <fmt/format.h>

namespace rocmtune::util {

std::string FormatBytes(uint64_t bytes) {
  constexpr std::array<std::string_view, 6> kUnits = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  size_t unit = 0;
  uint64_t scale = 1024;  // bytes per kUnits[unit]
  while (unit + 1 < kUnits.size() && bytes / scale >= 1024) {
    scale *= 1024;
    ++unit;
  }
  const uint64_t whole = bytes / scale;
  const uint64_t rest = bytes % scale;
  if (rest == 0) return fmt::format("{} {}", whole, kUnits[unit]);
  // Tenths rounded down. rest < scale <= 2^60 (EiB), so rest * 10 < 2^64 never overflows.
  const uint64_t tenths = rest * 10 / scale;
  return fmt::format("{}.{} {}", whole, tenths, kUnits[unit]);
}

std::optional<uint64_t> MultiplyBytes(uint64_t a, uint64_t b) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) return std::nullopt;
  return a * b;
}

}  // namespace rocmtune::util
