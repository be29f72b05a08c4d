// The distribution's ROCm on a Fedora world (rx6600, Fedora 41): HIP and rocBLAS in /usr/lib64,
// their packages in an rpm database the real rpm wrote (tests/support/rpm_packages.h). What
// check-compute --json and status say of that runtime, as root and as a user, and when the
// database cannot be read. Skipped, with the reason, where rpm or rpmbuild is missing.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "rpm_packages.h"
#include "runtime_layouts.h"

namespace rocmtune {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using testing::WorldCopy;

// rx6600 with /opt/rocm taken away: a Fedora user with the distribution's packages only.
void AsFedoraWithDistroRocm(const WorldCopy& w) {
  std::filesystem::remove_all(w.Path("opt/rocm"));
  testing::GiveKfd(w);
  testing::InstallDistroRocblas(w.root(), "6.3.1", "6.3.1", {"gfx1030", "gfx1032", "gfx1100"}, /*fedora=*/true);
}

nlohmann::ordered_json LoadedRuntime(const WorldCopy& w, bool as_nobody) {
  testing::CliResult cli = w.Ctl({"check-compute", "--json"}, as_nobody);
  nlohmann::ordered_json doc = cli.Json();
  return doc["program"]["runtime"];
}

TEST(DistroPackageTest, FedoraRuntimeNamesItsRpmPackage) {
  if (auto why = testing::RpmUnavailable()) GTEST_SKIP() << *why;
  WorldCopy w("rx6600");
  AsFedoraWithDistroRocm(w);
  std::vector<std::string> rpms;
  for (const testing::RpmSpec& spec : testing::FedoraRocmPackages()) rpms.push_back(testing::BuildRpm(spec));
  testing::InstallRpms(w.root(), rpms);
  for (bool as_nobody : {false, true}) {
    nlohmann::ordered_json runtime = LoadedRuntime(w, as_nobody);
    EXPECT_EQ(runtime["kind"], "distro") << runtime.dump(2);
    EXPECT_EQ(runtime["package"], "rocm-hip 6.3.1-1.fc42") << (as_nobody ? "as nobody" : "as root");
    EXPECT_EQ(runtime["version"], "6.3.1");
    EXPECT_THAT(runtime["evidence"], Contains("/usr/lib/sysimage/rpm/rpmdb.sqlite: rocm-hip 6.3.1-1.fc42"));
    EXPECT_THAT(runtime["evidence"], Contains("/usr/lib/sysimage/rpm/rpmdb.sqlite: rocblas 6.3.1-1.fc42"));
    EXPECT_EQ(runtime["evidence"].dump().find("without its -shm"), std::string::npos);  // rpm left them: read
  }
  EXPECT_THAT(w.Ctl({"status"}).out, HasSubstr("the distribution's ROCm 6.3.1 (/usr/lib64)"));
}

TEST(DistroPackageTest, AnUnreadableRpmDatabaseLeavesTheRuntimeWithoutPackage) {
  WorldCopy w("rx6600");
  AsFedoraWithDistroRocm(w);
  w.Write("usr/lib/sysimage/rpm/rpmdb.sqlite", std::string(8192, '\xff'));
  nlohmann::ordered_json runtime = LoadedRuntime(w, false);
  EXPECT_EQ(runtime["kind"], "distro") << runtime.dump(2);
  EXPECT_EQ(runtime["package"], nullptr);
  EXPECT_THAT(runtime["evidence"], Contains("/usr/lib/sysimage/rpm/rpmdb.sqlite: not read: file is not a database"));
}

}  // namespace
}  // namespace rocmtune
