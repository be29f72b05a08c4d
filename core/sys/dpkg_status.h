// dpkg's status file (/var/lib/dpkg/status, dpkg(1)): which packages are installed, and their
// versions. Read by the distribution runtime (runtime/system_rocm.cc: libamdhip64, librocblas)
// and by detection (detect/amdgpu_dkms.cc: amdgpu-dkms).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace rocmtune::sys {

inline constexpr std::string_view kDpkgStatus = "var/lib/dpkg/status";
inline constexpr size_t kMaxDpkgStatusBytes = 32 << 20;

struct DpkgPackage {
  std::string name;
  std::string version;  // as dpkg writes it: "1:5.2.3-8"
};

// The first stanza, in file order, whose package is installed ("Status: ... installed") and whose
// name `wanted` accepts.
std::optional<DpkgPackage> FirstInstalled(std::string_view status,
                                          const std::function<bool(std::string_view name)>& wanted);

}  // namespace rocmtune::sys
