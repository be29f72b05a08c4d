// Which SMI library answers: every SONAME distributions ship, the successor first.
#include <fmt/format.h>

#include "sys/rocm_smi.h"

namespace rocmtune::sys {

const char* SmiKindName(SmiKind kind) { return kind == SmiKind::kAmdSmi ? "amd-smi" : "rocm-smi-lib"; }

const std::vector<SmiLibrary>& DefaultSmiLibraries() {
  // amd-smi's SONAME is its library major version (projects/amdsmi/src/CMakeLists.txt: SOVERSION
  // "${VERSION_MAJOR}", AMDSMI_LIB_VERSION_MAJOR of amdsmi.h): 24 in ROCm 6.1-6.3 (ROCm/amdsmi tags
  // amdsmi_so_ver-24.5 to 24.6), 26 in ROCm 7.x (Ubuntu 26.04 libamd-smi26), 27 in ROCm 10.0
  // (Ubuntu's next release, libamd-smi27), 25 in ROCm 6.4 (amdsmi CHANGELOG.md, ROCm 6.4.0: "Version
  // changed from 25.2.0.0 ... to 25.2.0"). Debian trixie's package is libamd-smi0 (its SONAME is
  // inferred from the package name).
  // rocm-smi-lib's is the major of its rsmi_so_ver-* git tag (rocm_smi/CMakeLists.txt,
  // get_version_from_tag("1.0.0.0" ...)): 7 where the tags are (AMD's builds; Ubuntu's next
  // release, librocm-smi64-7), 1 in a build from a release tarball (Debian and Ubuntu's
  // librocm-smi64-1).
  static const std::vector<SmiLibrary> kLibraries = {
      {SmiKind::kAmdSmi, "libamd_smi.so.27"},    {SmiKind::kAmdSmi, "libamd_smi.so.26"},
      {SmiKind::kAmdSmi, "libamd_smi.so.25"},    {SmiKind::kAmdSmi, "libamd_smi.so.24"},
      {SmiKind::kAmdSmi, "libamd_smi.so.0"},     {SmiKind::kRocmSmi, "librocm_smi64.so.7"},
      {SmiKind::kRocmSmi, "librocm_smi64.so.1"},
  };
  return kLibraries;
}

uint64_t RsmiInitFlags(uint32_t major, uint32_t minor) {
  // RSMI_INIT_FLAG_THRAD_ONLY_MUTEX (sic) = 0x400000000000000, include/rocm_smi/rocm_smi.h from
  // ROCm/rocm_smi_lib 6ff95e5 "Support thread only mutex", first in tag rocm-6.1.2, whose library
  // version is 7.2.0 (CMakeLists.txt get_package_version_number("7.2.0"); rocm-6.1.1 is 7.0.0).
  // With it shared_mutex_init keeps a mutex of the process instead of /dev/shm/rocm_smi_cardN
  // (third_party/shared_mutex/shared_mutex.cc). Older releases are not passed it.
  constexpr uint64_t kThreadOnlyMutex = 0x400000000000000ULL;
  return (major > 7 || (major == 7 && minor >= 2)) ? kThreadOnlyMutex : 0;
}

SmiProbe ReadSmi(const std::vector<SmiLibrary>& libraries, const SmiLoaded& loaded) {
  std::vector<std::string> errors, tried;
  std::string unusable;  // a library that loaded without the functions
  for (const SmiLibrary& l : libraries) {
    SmiProbe probe = l.kind == SmiKind::kAmdSmi ? ReadAmdSmi(l.name, loaded) : ReadRocmSmi(l.name, loaded);
    if (!probe.source.empty()) return probe;
    if (unusable.empty() && probe.error.find(" has no ") != std::string::npos) unusable = probe.error;
    errors.push_back(std::move(probe.error));
    tried.push_back(l.name);
  }
  SmiProbe probe;
  if (!unusable.empty()) probe.error = std::move(unusable);
  else if (errors.size() == 1) probe.error = std::move(errors.front());
  else probe.error = fmt::format("neither amd-smi nor rocm-smi-lib is installed (tried {})", fmt::join(tried, ", "));
  return probe;
}

}  // namespace rocmtune::sys
