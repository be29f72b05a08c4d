// `rocmtunectl reapply [CARD]` (core/api/reapply.h) on world copies: a reboot or GPU reset is
// simulated by writing the attribute's untouched content back behind rocmtune's back; reapply
// writes rocmtune's value again in one transaction, a second reapply records nothing, one card's
// reapply leaves another alone, a card that is not here is not an error, a setting that cannot
// be planned fails the run (naming it) while the rest is written, and `revert last`
// after a reapply still undoes the `set` (a reapply is not an undoable change of its own). The
// race at a GPU add: power-profiles-daemon's amdgpu_dpm action wrote `auto` first, then
// rocmtune-apply@ (reapply) writes `high` back and warns that the daemon writes it too; once the
// action is blocked (service.power-profiles-daemon.amdgpu_dpm=off) the warning is gone.
#include <filesystem>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"
#include "knobs/sysfs_attributes.h"
#include "plan/owned_paths.h"

namespace fs = std::filesystem;

namespace rocmtune::client {
namespace {

using json = nlohmann::ordered_json;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::WorldCopy;

constexpr const char* kReapplyWorld = "rx6900xt";
constexpr const char* kReapplyDevice = "0000:0c:00.0";
constexpr const char* kDevices = "sys/devices/pci0000:00";
constexpr const char* kProfile = "pp_power_profile_mode";
constexpr const char* kLevel = "power_dpm_force_performance_level";

std::string AttrPath(std::string_view device, std::string_view attr) {
  return fmt::format("{}/{}/{}", kDevices, device, attr);
}

std::string Current(const WorldCopy& w, std::string_view device, std::string_view attr) {
  return knobs::FindSysfsAttribute(attr)->codec->Current(w.Read(AttrPath(device, attr))).value_or("?");
}

// How a plan names an attribute: through the card's class link.
std::string PlanPath(std::string_view card, std::string_view attr) {
  return fmt::format("sys/class/drm/{}/device/{}", card, attr);
}

std::vector<std::string> ChangedPaths(const json& result) {
  std::vector<std::string> paths;
  for (const json& op : result["changes"]) paths.push_back(op.value("path", ""));
  return paths;
}

// A second RX 6900 XT at 0000:0d:00.0 as card1: the first one's sysfs directory copied, its own
// address in uevent, its own DRM card and class link.
constexpr const char* kSecond = "0000:0d:00.0";
void AddSecondCard(const WorldCopy& w) {
  const fs::path dir = w.Path(fmt::format("{}/{}", kDevices, kSecond));
  fs::copy(w.Path(fmt::format("{}/{}", kDevices, kReapplyDevice)), dir,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  std::string uevent = w.Read(AttrPath(kSecond, "uevent"));
  uevent.replace(uevent.find(kReapplyDevice), std::string_view(kReapplyDevice).size(), kSecond);
  w.Write(AttrPath(kSecond, "uevent"), uevent);
  fs::remove_all(dir / "drm/renderD128");
  fs::rename(dir / "drm/card0", dir / "drm/card1");
  fs::remove(dir / "drm/card1/device");
  fs::create_directory_symlink(fmt::format("../../../{}", kSecond), dir / "drm/card1/device");
  fs::create_directory_symlink(fmt::format("../../devices/pci0000:00/{}/drm/card1", kSecond),
                               w.Path("sys/class/drm/card1"));
}

TEST(ReapplyTest, WritesBackWhatAGpuResetUndidOnceAndThenNothing) {
  WorldCopy w(kReapplyWorld);
  const std::string profile_untouched = w.Read(AttrPath(kReapplyDevice, kProfile));
  const std::string level_untouched = w.Read(AttrPath(kReapplyDevice, kLevel));
  auto set =
      w.Ctl({"set", fmt::format("sysfs.card0.{}=COMPUTE", kProfile), fmt::format("sysfs.card0.{}=high", kLevel)});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  const std::string state = w.Read(plan::kRuntimeState);
  const size_t journals = w.JournalFiles();

  // The GPU was reset: the driver's defaults are back.
  w.Write(AttrPath(kReapplyDevice, kProfile), profile_untouched);
  w.Write(AttrPath(kReapplyDevice, kLevel), level_untouched);
  ASSERT_EQ(w.Ctl({"verify"}).exit_code, kExitVerifyDiffers);

  auto check = w.Ctl({"reapply", "--check", "--json"});
  ASSERT_EQ(check.exit_code, kExitOk) << check.out << check.err;
  EXPECT_EQ(check.Json()["check"], true) << check.out;
  EXPECT_EQ(check.Json()["transaction"], nullptr) << check.out;
  EXPECT_EQ(ChangedPaths(check.Json()).size(), 2u) << check.out;
  EXPECT_EQ(w.Read(AttrPath(kReapplyDevice, kProfile)), profile_untouched) << "--check writes nothing";

  auto reapply = w.Ctl({"reapply", "--json"});
  ASSERT_EQ(reapply.exit_code, kExitOk) << reapply.out << reapply.err;
  const json doc = reapply.Json();
  EXPECT_EQ(testing::ResultDocumentProblems(doc), "") << reapply.out;
  EXPECT_EQ(doc["changed"], true) << reapply.out;
  EXPECT_THAT(ChangedPaths(doc),
              ::testing::UnorderedElementsAre(PlanPath("card0", kProfile), PlanPath("card0", kLevel)))
      << reapply.out;
  EXPECT_EQ(Current(w, kReapplyDevice, kProfile), "COMPUTE");
  EXPECT_EQ(Current(w, kReapplyDevice, kLevel), "high");
  EXPECT_EQ(w.Read(plan::kRuntimeState), state) << "what rocmtune keeps set does not change";
  EXPECT_EQ(w.JournalFiles(), journals + 1) << "journaled as one transaction";
  EXPECT_EQ(w.Ctl({"verify"}).exit_code, kExitOk);
  EXPECT_THAT(w.Ctl({"history"}).out, HasSubstr("reapply"));

  auto again = w.Ctl({"reapply", "--json"});
  ASSERT_EQ(again.exit_code, kExitOk) << again.out << again.err;
  EXPECT_EQ(again.Json()["changed"], false) << again.out;
  EXPECT_EQ(ChangedPaths(again.Json()), std::vector<std::string>{}) << again.out;
  EXPECT_EQ(w.JournalFiles(), journals + 1) << "an idempotent reapply records nothing";
  EXPECT_THAT(w.Ctl({"reapply"}).out, HasSubstr("Nothing to re-apply"));
}

TEST(ReapplyTest, OneCardLeavesTheOtherAlone) {
  WorldCopy w(kReapplyWorld);
  AddSecondCard(w);
  const std::string untouched = w.Read(AttrPath(kReapplyDevice, kProfile));
  auto set = w.Ctl({"set", fmt::format("sysfs.all.{}=COMPUTE", kProfile)});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  ASSERT_EQ(Current(w, kSecond, kProfile), "COMPUTE") << "the second card is a GPU rocmtune manages";
  w.Write(AttrPath(kReapplyDevice, kProfile), untouched);
  w.Write(AttrPath(kSecond, kProfile), untouched);

  auto one = w.Ctl({"reapply", "card1", "--json"});
  ASSERT_EQ(one.exit_code, kExitOk) << one.out << one.err;
  EXPECT_EQ(ChangedPaths(one.Json()), std::vector<std::string>{PlanPath("card1", kProfile)}) << one.out;
  EXPECT_EQ(Current(w, kSecond, kProfile), "COMPUTE");
  EXPECT_EQ(w.Read(AttrPath(kReapplyDevice, kProfile)), untouched) << "card0 is untouched, byte for byte";

  // By PCI address, as the state file names it.
  auto other = w.Ctl({"reapply", kReapplyDevice, "--json"});
  ASSERT_EQ(other.exit_code, kExitOk) << other.out << other.err;
  EXPECT_EQ(ChangedPaths(other.Json()), std::vector<std::string>{PlanPath("card0", kProfile)}) << other.out;
  EXPECT_EQ(Current(w, kReapplyDevice, kProfile), "COMPUTE");
}

TEST(ReapplyTest, ACardThatIsNotHereOrHasNoSettingsIsNotAnError) {
  WorldCopy w(kReapplyWorld);
  auto none = w.Ctl({"reapply", "card0"});
  EXPECT_EQ(none.exit_code, kExitOk) << none.out << none.err;
  EXPECT_THAT(none.out, HasSubstr("keeps no runtime setting for 0000:0c:00.0")) << none.out;

  ASSERT_EQ(w.Ctl({"set", fmt::format("sysfs.card0.{}=COMPUTE", kProfile)}).exit_code, kExitOk);
  const size_t journals = w.JournalFiles();
  auto gone = w.Ctl({"reapply", "card7"});
  EXPECT_EQ(gone.exit_code, kExitOk) << gone.out << gone.err;
  EXPECT_THAT(gone.out, HasSubstr("no amdgpu GPU is 'card7' here")) << gone.out;
  EXPECT_THAT(gone.out, Not(HasSubstr("in place"))) << "nothing was compared: " << gone.out;
  auto gone_json = w.Ctl({"reapply", "0000:99:00.0", "--json"});
  EXPECT_EQ(gone_json.exit_code, kExitOk) << gone_json.out << gone_json.err;
  EXPECT_EQ(gone_json.Json()["changed"], false) << gone_json.out;
  EXPECT_EQ(w.JournalFiles(), journals);
}

// A setting kept for a device that is gone stays kept; the devices that are here are written.
TEST(ReapplyTest, ASettingOfADeviceThatIsGoneIsKeptAndNamed) {
  WorldCopy w(kReapplyWorld);
  AddSecondCard(w);
  const std::string untouched = w.Read(AttrPath(kReapplyDevice, kProfile));
  ASSERT_EQ(w.Ctl({"set", fmt::format("sysfs.all.{}=COMPUTE", kProfile)}).exit_code, kExitOk);
  fs::remove(w.Path("sys/class/drm/card1"));
  w.Write(AttrPath(kReapplyDevice, kProfile), untouched);
  const std::string state = w.Read(plan::kRuntimeState);
  auto reapply = w.Ctl({"reapply"});
  ASSERT_EQ(reapply.exit_code, kExitOk) << reapply.out << reapply.err;
  EXPECT_THAT(reapply.out, HasSubstr(fmt::format("{} is not here", kSecond)));
  EXPECT_EQ(Current(w, kReapplyDevice, kProfile), "COMPUTE");
  EXPECT_EQ(w.Read(plan::kRuntimeState), state);
}

// A setting that cannot be planned (its attribute gone after a driver update) fails the reapply,
// naming it, so the unit shows failed; the others are written all the same.
TEST(ReapplyTest, ASettingThatCannotBePlannedFailsAndTheRestIsWritten) {
  WorldCopy w(kReapplyWorld);
  const std::string untouched = w.Read(AttrPath(kReapplyDevice, kProfile));
  auto set =
      w.Ctl({"set", fmt::format("sysfs.card0.{}=COMPUTE", kProfile), fmt::format("sysfs.card0.{}=high", kLevel)});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  w.Write(AttrPath(kReapplyDevice, kProfile), untouched);
  fs::remove(w.Path(AttrPath(kReapplyDevice, kLevel)));
  auto reapply = w.Ctl({"reapply", "--json"});
  EXPECT_EQ(reapply.exit_code, kExitFailed) << reapply.out << reapply.err;
  const json doc = reapply.Json();
  EXPECT_EQ(testing::ResultDocumentProblems(doc), "") << reapply.out;
  EXPECT_THAT(doc["errors"].dump(), HasSubstr(fmt::format("not re-applied: sysfs.{}.{}", kReapplyDevice, kLevel)))
      << reapply.out;
  EXPECT_EQ(ChangedPaths(doc), std::vector<std::string>{PlanPath("card0", kProfile)}) << reapply.out;
  EXPECT_EQ(Current(w, kReapplyDevice, kProfile), "COMPUTE");
}

// After a reboot's reapply, `revert last` still means the admin's last change.
TEST(ReapplyTest, RevertLastAfterAReapplyUndoesTheSet) {
  WorldCopy w(kReapplyWorld);
  const std::string untouched = w.Read(AttrPath(kReapplyDevice, kProfile));
  ASSERT_EQ(w.Ctl({"set", fmt::format("sysfs.card0.{}=COMPUTE", kProfile)}).exit_code, kExitOk);
  w.Write(AttrPath(kReapplyDevice, kProfile), untouched);
  auto reapply = w.Ctl({"reapply", "card0", "--json"});
  ASSERT_EQ(reapply.exit_code, kExitOk) << reapply.out << reapply.err;
  ASSERT_EQ(reapply.Json()["changed"], true) << reapply.out;

  auto revert = w.Ctl({"revert", "last", "--json"});
  ASSERT_EQ(revert.exit_code, kExitOk) << revert.out << revert.err;
  EXPECT_EQ(w.Read(AttrPath(kReapplyDevice, kProfile)), untouched);
  EXPECT_FALSE(w.Exists(plan::kRuntimeState)) << "the set is undone, not the reapply: " << revert.out;
}

TEST(ReapplyTest, AfterPowerProfilesDaemonsWriteAtAGpuAddItWritesBackAndNamesIt) {
  WorldCopy w(kReapplyWorld);
  fs::create_directories(w.Path("etc/systemd/system/graphical.target.wants"));
  fs::create_symlink("/lib/systemd/system/power-profiles-daemon.service",
                     w.Path("etc/systemd/system/graphical.target.wants/power-profiles-daemon.service"));
  w.Write("lib/systemd/system/power-profiles-daemon.service",
          "[Service]\nType=dbus\nExecStart=/usr/libexec/power-profiles-daemon\n[Install]\nWantedBy=graphical.target\n");
  // The strings such a binary has; sizeof counts the literal's own final NUL.
  constexpr char kBinary[] =
      "\x7f"
      "ELF\0--block-action\0amdgpu_dpm";
  w.Write("usr/libexec/power-profiles-daemon", std::string(kBinary, sizeof kBinary));
  w.Write("proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\n");
  auto set = w.Ctl({"set", fmt::format("sysfs.card0.{}=high", kLevel)});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  EXPECT_THAT(set.out + set.err, HasSubstr("power-profiles-daemon is installed")) << "set warns before writing";

  // The card is added again (a driver rebind): the action writes auto, then rocmtune-apply@ runs.
  w.Write(AttrPath(kReapplyDevice, kLevel), "auto\n");
  auto verify = w.Ctl({"verify"});
  EXPECT_EQ(verify.exit_code, kExitVerifyDiffers);
  EXPECT_THAT(verify.out, HasSubstr("power-profiles-daemon's amdgpu_dpm action writes auto")) << verify.out;
  auto reapply = w.Ctl({"reapply", "--json", "--", "card0"});
  ASSERT_EQ(reapply.exit_code, kExitOk) << reapply.out << reapply.err;
  EXPECT_EQ(Current(w, kReapplyDevice, kLevel), "high");
  const json warnings = reapply.Json()["warnings"];
  ASSERT_EQ(warnings.size(), 1u) << reapply.out;
  EXPECT_THAT(warnings[0].dump(), HasSubstr("power-profiles-daemon is installed and enabled on an AMD CPU"));
  EXPECT_THAT(warnings[0].dump(), HasSubstr("service.power-profiles-daemon.amdgpu_dpm=off"));

  // Settled: the action is blocked from the daemon's next start; the race is gone.
  auto settle = w.Ctl({"set", "service.power-profiles-daemon.amdgpu_dpm=off"});
  ASSERT_EQ(settle.exit_code, kExitOk) << settle.out << settle.err;
  w.Write(AttrPath(kReapplyDevice, kLevel), "auto\n");
  reapply = w.Ctl({"reapply", "--json", "--", "card0"});
  ASSERT_EQ(reapply.exit_code, kExitOk) << reapply.out << reapply.err;
  EXPECT_EQ(Current(w, kReapplyDevice, kLevel), "high");
  EXPECT_EQ(reapply.Json()["warnings"], json::array()) << reapply.out;
}

}  // namespace
}  // namespace rocmtune::client
