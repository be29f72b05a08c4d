// Other writers of rocmtune's GPU attributes, from their files (detect/other_writers.h):
// power-profiles-daemon installed, enabled or only D-Bus activatable, masked, its amdgpu_dpm
// action blocked by a drop-in (both spellings), on an AMD or another vendor's CPU or an unreadable
// /proc/cpuinfo; LACT enabled with and without its configuration, installed but disabled;
// CoreCtrl's helper installed; what the daemon said on the bus (0.12 without the action, 0.30 with it
// enabled or disabled, tuned-ppd, a bus that could not be asked); tuned's active profile with
// [sysfs] lines (a PCI address with ':' in its key, an include chain, a plugin section by type=)
// and with only [video] radeon_powersave; GameMode's [gpu] level with and without
// accept-responsibility, /etc over /usr/share; LACT's socket without its unit enabled.
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
  EXPECT_NE(found[0].what.find("installed and enabled on an AMD CPU"), std::string::npos) << found[0].what;
  EXPECT_NE(found[0].what.find("power_dpm_force_performance_level"), std::string::npos);
  EXPECT_NE(found[0].fix.text.find("--block-action=amdgpu_dpm"), std::string::npos);
  EXPECT_FALSE(found[0].sources.empty());
}

// Disabled is not off: its bus service starts it on a desktop's first call.
TEST(OtherWritersTest, ADisabledPowerProfilesDaemonStillRunsOnDemand) {
  TestTree t;
  Ppd(t, /*enabled=*/false);
  auto found = Find(t);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::kWarning);
  EXPECT_EQ(found[0].file, kPpdUnit);
  EXPECT_NE(found[0].what.find("D-Bus activation starts it"), std::string::npos) << found[0].what;
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
    EXPECT_NE(found[0].what.find("blocked"), std::string::npos);
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
  EXPECT_NE(found[0].what.find("the CPU's vendor could not be read"), std::string::npos) << found[0].what;
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
  EXPECT_EQ(found[0].what.find("config.yaml"), std::string::npos);
  t.Write("etc/lact/config.yaml", "version: 5\ngpus: {}\n");
  found = Find(t);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].file, "etc/lact/config.yaml");
  t.Write("usr/share/dbus-1/system-services/org.corectrl.helper.service", "[D-BUS Service]\n");
  found = Find(t);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[1].id, "writer.corectrl");
}

Finding Only(const std::vector<Finding>& found, std::string_view id) {
  std::vector<Finding> match;
  for (const Finding& f : found)
    if (f.id == id) match.push_back(f);
  EXPECT_EQ(match.size(), 1u) << id;
  return match.empty() ? Finding{} : match[0];
}

constexpr std::string_view kLevel = "sys/devices/pci0000:00/0000:03:00.0/power_dpm_force_performance_level";

void Card(const TestTree& t, std::string_view level) {
  t.Write(kLevel, std::string(level) + "\n");
  t.Symlink("sys/class/drm/card1", "../../devices/pci0000:00/0000:03:00.0/drm/card1");
  t.Symlink("sys/devices/pci0000:00/0000:03:00.0/drm/card1/device", "../..");
}

TEST(OtherWritersTest, TheBusDecidesWhatTheRunningDaemonDoes) {
  TestTree t;
  Ppd(t);
  Card(t, "high");
  auto root = *sys::Root::Open(t.path());

  PowerProfilesBus old;
  old.running = true;
  old.name = "net.hadess.PowerProfiles";
  old.actions = {"trickle_charge"};
  Finding f = Only(OtherWriterFindings(root, &old), "writer.power-profiles-daemon");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_NE(f.what.find("without the Version property"), std::string::npos) << f.what;
  EXPECT_NE(f.what.find("runs without an amdgpu_dpm action"), std::string::npos) << f.what;
  EXPECT_NE(f.what.find("its actions: trickle_charge"), std::string::npos) << f.what;

  PowerProfilesBus now;
  now.running = true;
  now.name = "org.freedesktop.UPower.PowerProfiles";
  now.version = "0.30";
  now.actions = {"amdgpu_dpm"};
  now.amdgpu_dpm_enabled = true;
  now.set_action_enabled = true;
  now.drivers = {"amd_pstate"};
  now.active_profile = "balanced";
  f = Only(OtherWriterFindings(root, &now), "writer.power-profiles-daemon");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_NE(f.what.find("power-profiles-daemon 0.30 resets power_dpm_force_performance_level to auto"),
            std::string::npos)
      << f.what;
  EXPECT_NE(f.what.find("card1's `high` will not last"), std::string::npos) << f.what;
  EXPECT_NE(f.fix.text.find("service.power-profiles-daemon.amdgpu_dpm=off"), std::string::npos);

  t.Write(kLevel, "manual\n");  // the action skips a card in manual (0.23 on)
  f = Only(OtherWriterFindings(root, &now), "writer.power-profiles-daemon");
  EXPECT_EQ(f.what.find("will not last"), std::string::npos) << f.what;

  now.amdgpu_dpm_enabled = false;
  f = Only(OtherWriterFindings(root, &now), "writer.power-profiles-daemon");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_NE(f.what.find("disabled now"), std::string::npos) << f.what;

  PowerProfilesBus tuned;
  tuned.running = true;
  tuned.drivers = {"tuned"};
  f = Only(OtherWriterFindings(root, &tuned), "writer.power-profiles-daemon");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_NE(f.what.find("tuned-ppd"), std::string::npos) << f.what;

  PowerProfilesBus broken;
  broken.error = "cannot connect to the system bus: No such file or directory";
  f = Only(OtherWriterFindings(root, &broken), "writer.power-profiles-daemon");
  EXPECT_EQ(f.severity, Severity::kWarning);  // the files' answer, and why the bus's is missing
  EXPECT_NE(f.what.find("the bus could not be asked: cannot connect"), std::string::npos) << f.what;
}

// The daemon still runs the old binary until it restarts: a drop-in alone is not yet the answer.
TEST(OtherWritersTest, ADropInTheRunningDaemonHasNotReadYetStillWarns) {
  TestTree t;
  Ppd(t);
  t.Write("etc/systemd/system/power-profiles-daemon.service.d/50-rocmtune.conf",
          "[Service]\nExecStart=\nExecStart=/usr/libexec/power-profiles-daemon --block-action=amdgpu_dpm\n");
  PowerProfilesBus running;
  running.running = true;
  running.version = "0.25";
  running.actions = {"amdgpu_dpm"};
  Finding f = Only(OtherWriterFindings(*sys::Root::Open(t.path()), &running), "writer.power-profiles-daemon");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_NE(f.what.find("blocks it only from the daemon's next start"), std::string::npos) << f.what;
  running.actions = {};
  f = Only(OtherWriterFindings(*sys::Root::Open(t.path()), &running), "writer.power-profiles-daemon");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_NE(f.what.find("(blocked by /etc/systemd/system/power-profiles-daemon.service.d/50-rocmtune.conf)"),
            std::string::npos)
      << f.what;
}

void Tuned(const TestTree& t, std::string_view active) {
  t.Write("usr/lib/systemd/system/tuned.service", "[Service]\nExecStart=/usr/sbin/tuned -l -P\n");
  t.Symlink("etc/systemd/system/multi-user.target.wants/tuned.service", "/usr/lib/systemd/system/tuned.service");
  t.Write("etc/tuned/active_profile", active);
}

TEST(OtherWritersTest, TunedsActiveProfileWithGpuSysfsLinesWarns) {
  TestTree t;
  Tuned(t, "gpu-low\n");
  // An include chain: gpu-low (the admin's, /etc) includes balanced (the package's) and a profile
  // of its own whose [gpu] section is the sysfs plugin by type=.
  t.Write("etc/tuned/gpu-low/tuned.conf",
          "[main]\ninclude=balanced, gpu-base\n\n[sysfs]\n"
          "/sys/bus/pci/devices/0000:03:00.0/power_dpm_force_performance_level=low\n"
          "/sys/kernel/mm/transparent_hugepage/enabled=madvise\n");
  t.Write("usr/lib/tuned/balanced/tuned.conf", "[main]\nsummary=General\n[cpu]\ngovernor=schedutil\n");
  t.Write("usr/lib/tuned/gpu-base/tuned.conf",
          "[gpu]\ntype=sysfs\n/sys/class/drm/card*/device/pp_power_profile_mode=5\n");
  Finding f = Only(Find(t), "writer.tuned");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.file, "usr/lib/tuned/gpu-base/tuned.conf");  // parents first: the first file with one
  EXPECT_NE(f.what.find("/sys/bus/pci/devices/0000:03:00.0/power_dpm_force_performance_level=low"), std::string::npos)
      << f.what;
  EXPECT_NE(f.what.find("/sys/class/drm/card*/device/pp_power_profile_mode=5"), std::string::npos) << f.what;
  EXPECT_EQ(f.what.find("transparent_hugepage"), std::string::npos) << f.what;
  EXPECT_NE(f.what.find("(gpu-low)"), std::string::npos) << f.what;
}

TEST(OtherWritersTest, TunedWithoutGpuLinesIsNothingAndRadeonPowersaveIsInfo) {
  TestTree t;
  Tuned(t, "balanced");
  t.Write("usr/lib/tuned/balanced/tuned.conf", "[main]\nsummary=General\n[cpu]\ngovernor=schedutil\n");
  EXPECT_TRUE(Find(t).empty());
  t.Write("usr/lib/tuned/balanced/tuned.conf", "[video]\nradeon_powersave=dpm-balanced, auto\n");
  Finding f = Only(Find(t), "writer.tuned");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_NE(f.what.find("radeon_powersave"), std::string::npos) << f.what;
  t.Write("etc/tuned/active_profile", "no-such-profile\n");
  EXPECT_TRUE(Find(t).empty());
}

TEST(OtherWritersTest, GameModesGpuLevelWarnsOnlyWithAcceptResponsibility) {
  TestTree t;
  t.Write("usr/bin/gamemoded", "");
  t.Write("usr/share/gamemode/gamemode.ini", "[general]\nreaper_freq=5\n[gpu]\n;amd_performance_level=high\n");
  EXPECT_TRUE(Find(t).empty());
  t.Write("etc/gamemode.ini",
          "[gpu]\napply_gpu_optimisations=accept-responsibility\ngpu_device=1\n"
          "amd_performance_level=high ; while playing\n");
  Finding f = Only(Find(t), "writer.gamemode");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.file, "etc/gamemode.ini");
  EXPECT_NE(f.what.find("card1's power_dpm_force_performance_level to high while a game runs"), std::string::npos)
      << f.what;
  t.Write("etc/gamemode.ini", "[gpu]\namd_performance_level=high\n");  // not accepted: GameMode does nothing
  EXPECT_TRUE(Find(t).empty());
}

TEST(OtherWritersTest, LactsSocketSaysItRuns) {
  TestTree t;
  t.Write("run/lactd.sock", "");  // a world's stand-in for the socket
  Finding f = Only(Find(t), "writer.lact");
  EXPECT_NE(f.what.find("is running (/run/lactd.sock)"), std::string::npos) << f.what;
}

}  // namespace
}  // namespace rocmtune::detect
