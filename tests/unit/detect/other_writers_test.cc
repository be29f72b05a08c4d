// Other writers of rocmtune's GPU attributes, from their files (detect/other_writers.h):
// power-profiles-daemon installed, enabled or only D-Bus activatable, masked, its amdgpu_dpm
// action blocked by a drop-in (both spellings), on an AMD or another vendor's CPU or an unreadable
// /proc/cpuinfo; LACT enabled with and without its configuration, installed but disabled;
// CoreCtrl's helper installed.
#include "detect/other_writers.h"

#include <gtest/gtest.h>

#include "test_tree.h"

namespace rocmtune::detect {
namespace {

using testing::TestTree;

constexpr std::string_view kAmdCpu = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n";
constexpr std::string_view kIntelCpu = "processor\t: 0\nvendor_id\t: GenuineIntel\n";
constexpr std::string_view kPpdUnit = "lib/systemd/system/power-profiles-daemon.service";
constexpr std::string_view kPpdWants = "etc/systemd/system/graphical.target.wants/power-profiles-daemon.service";

std::vector<Finding> Find(const TestTree& t) { return OtherWriterFindings(*sys::Root::Open(t.path())); }

void Ppd(const TestTree& t, bool enabled = true) {
  t.Write(kPpdUnit, "[Service]\nExecStart=/usr/libexec/power-profiles-daemon\n");
  if (enabled) t.Symlink(kPpdWants, "/lib/systemd/system/power-profiles-daemon.service");
  t.Write("proc/cpuinfo", kAmdCpu);
}

TEST(OtherWritersTest, NoneInstalledIsNothing) {
  TestTree t;
  t.Write("proc/cpuinfo", kAmdCpu);
  EXPECT_TRUE(Find(t).empty());
}

TEST(OtherWritersTest, PowerProfilesDaemonOnAnAmdCpuWarns) {
  TestTree t;
  Ppd(t);
  auto found = Find(t);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, "writer.power-profiles-daemon");
  EXPECT_EQ(found[0].severity, Severity::kWarning);
  EXPECT_EQ(found[0].file, kPpdWants);
  EXPECT_NE(found[0].message.find("installed and enabled on an AMD CPU"), std::string::npos) << found[0].message;
  EXPECT_NE(found[0].message.find("power_dpm_force_performance_level"), std::string::npos);
  EXPECT_NE(found[0].hint.find("--block-action=amdgpu_dpm"), std::string::npos);
  EXPECT_FALSE(found[0].source.empty());
}

// Disabled is not off: its bus service starts it on a desktop's first call.
TEST(OtherWritersTest, ADisabledPowerProfilesDaemonStillRunsOnDemand) {
  TestTree t;
  Ppd(t, /*enabled=*/false);
  auto found = Find(t);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::kWarning);
  EXPECT_EQ(found[0].file, kPpdUnit);
  EXPECT_NE(found[0].message.find("D-Bus activation starts it"), std::string::npos) << found[0].message;
}

TEST(OtherWritersTest, AMaskedPowerProfilesDaemonIsNothing) {
  TestTree t;
  Ppd(t);
  t.Symlink("etc/systemd/system/power-profiles-daemon.service", "/dev/null");
  EXPECT_TRUE(Find(t).empty());
}

TEST(OtherWritersTest, ABlockedActionIsInfoNamingTheDropIn) {
  for (std::string_view exec : {"/usr/libexec/power-profiles-daemon --block-action=amdgpu_dpm",
                                "/usr/libexec/power-profiles-daemon --block-action amdgpu_dpm  "}) {
    TestTree t;
    Ppd(t);
    t.Write("etc/systemd/system/power-profiles-daemon.service.d/50-gpu.conf",
            "[Service]\nExecStart=\nExecStart=" + std::string(exec) + "\n");
    auto found = Find(t);
    ASSERT_EQ(found.size(), 1u) << exec;
    EXPECT_EQ(found[0].severity, Severity::kInfo) << exec;
    EXPECT_EQ(found[0].file, "etc/systemd/system/power-profiles-daemon.service.d/50-gpu.conf");
    EXPECT_NE(found[0].message.find("blocked"), std::string::npos);
  }
  // Another action blocked, a comment, a file that is not a drop-in: the GPU action still runs.
  TestTree t;
  Ppd(t);
  t.Write("etc/systemd/system/power-profiles-daemon.service.d/50-panel.conf",
          "[Service]\n# --block-action=amdgpu_dpm\nExecStart=\nExecStart=/usr/libexec/power-profiles-daemon "
          "--block-action=amdgpu_panel_power\n");
  t.Write("etc/systemd/system/power-profiles-daemon.service.d/README", "ExecStart=x --block-action=amdgpu_dpm\n");
  auto found = Find(t);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::kWarning);
}

TEST(OtherWritersTest, TheCpuVendorDecidesWhetherTheActionRuns) {
  TestTree t;
  Ppd(t);
  t.Write("proc/cpuinfo", kIntelCpu);
  EXPECT_TRUE(Find(t).empty()) << "amdgpu_dpm probes only on AMD CPUs";
  t.Write("proc/cpuinfo", std::string("processor\t: 0\0vendor_id", 22));  // a NUL, no vendor line
  auto found = Find(t);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("the CPU's vendor could not be read"), std::string::npos) << found[0].message;
}

TEST(OtherWritersTest, LactEnabledAndCoreCtrlInstalledAreInfo) {
  TestTree t;
  t.Write("usr/lib/systemd/system/lactd.service", "[Service]\nExecStart=/usr/bin/lact daemon\n");
  EXPECT_TRUE(Find(t).empty()) << "installed but not enabled";
  t.Symlink("etc/systemd/system/multi-user.target.wants/lactd.service", "/usr/lib/systemd/system/lactd.service");
  auto found = Find(t);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, "writer.lact");
  EXPECT_EQ(found[0].severity, Severity::kInfo);
  EXPECT_EQ(found[0].message.find("config.yaml"), std::string::npos);
  t.Write("etc/lact/config.yaml", "version: 5\ngpus: {}\n");
  found = Find(t);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].file, "etc/lact/config.yaml");
  t.Write("usr/share/dbus-1/system-services/org.corectrl.helper.service", "[D-BUS Service]\n");
  found = Find(t);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[1].id, "writer.corectrl");
}

}  // namespace
}  // namespace rocmtune::detect
