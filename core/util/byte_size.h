// Sizes as people read them: "11.6 GiB" for 12484345856 bytes. One formatter for every size
// rocmtune prints (page-count and MiB knobs, RAM), so text output and messages agree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace rocmtune::util {

// Binary units (KiB = 1024 bytes, up to EiB); a whole number of the unit prints without a
// fraction ("4 KiB", "16 GiB"), anything else with one decimal, rounded down ("11.6 GiB") so a
// size is never shown larger than it is. Below 1 KiB: "512 bytes".
std::string FormatBytes(uint64_t bytes);

// a * b, or nullopt when it does not fit in 64 bits (a page count typed as if it were bytes).
std::optional<uint64_t> MultiplyBytes(uint64_t a, uint64_t b);

}  // namespace rocmtune::util
