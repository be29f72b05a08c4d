// GC IP version from device/ip_discovery (amdgpu_discovery.c sysfs).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sys/root.h"

namespace rocmtune::detect {

// GC_HWID (soc15_hw_ip.h). Live systems also have a named "GC" symlink; captures often
// keep only the numeric directory, so both are tried.
inline constexpr std::string_view kGcHwId = "11";

// "11.0.1", or nullopt when the device has no readable ip_discovery table.
std::optional<std::string> ReadGcIpVersion(const sys::Root& root, std::string_view device_dir);

}  // namespace rocmtune::detect
