// The machine's RAM as the kernel counts it, from the root's proc/meminfo. One reader for every
// layer that needs it: the size knobs' limits (knobs/size_checks.h) and profiles' {gtt_pages}.
#pragma once

#include <cstdint>
#include <optional>

#include "sys/root.h"

namespace rocmtune::sys {

// MemTotal from proc/meminfo, in KiB; nullopt when the file or the line is missing or bad.
// MemTotal is si_meminfo()'s totalram (fs/proc/meminfo.c), the same number TTM halves for its
// default limits (drivers/gpu/drm/ttm/ttm_device.c ttm_global_init()).
std::optional<uint64_t> MemTotalKib(const Root& root);

}  // namespace rocmtune::sys
