// Packages made by the real rpmbuild and put into a test root's rpm database by the real rpm
// (Debian's rpm 4.18, its sqlite backend: what Fedora's rpm writes to rpmdb.sqlite). Built once per
// test binary run into a temporary directory; installing one takes about a tenth of a second.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocmtune::testing {

struct RpmFile {
  std::string path;        // absolute, as the package owns it: "/usr/lib64/libamdhip64.so.6"
  std::string symlink_to;  // empty: an empty regular file
};

struct RpmSpec {
  std::string name;
  std::string version;
  std::string release;
  std::vector<RpmFile> files;
  std::optional<uint32_t> epoch;
};

// Why packages cannot be made here (rpm or rpmbuild missing, a backend other than sqlite), for
// GTEST_SKIP; nullopt when they can.
std::optional<std::string> RpmUnavailable();

// The .rpm built from `spec` (x86_64), once per run for each name-version-release.
std::string BuildRpm(const RpmSpec& spec);

// rpm --initdb, then rpm -i --justdb --nodeps --noscripts of `rpms`, with --root `root_dir` and the
// database in `dbpath` (root-relative, as rpm's --dbpath takes it). No package file is written
// into the root, only the database.
void InstallRpms(const std::string& root_dir, const std::vector<std::string>& rpms,
                 std::string_view dbpath = "/usr/lib/sysimage/rpm");

// Fedora's packages of HIP and rocBLAS 6.3.1-1.fc42 (rocclr.spec's rocm-hip: libamdhip64.so.6 and
// its target; rocblas.spec: librocblas.so.4 and rocblas/library), owning what
// InstallDistroRocblas(..., fedora = true) writes.
std::vector<RpmSpec> FedoraRocmPackages();

}  // namespace rocmtune::testing
