// Runtime sysfs settings as rocmtune keeps them (knobs/runtime_state.h): `reset` and `unset`
// put the value before back in the form the kernel takes, `status` lists them as rocmtune's,
// `verify` says when a device no longer runs them, the state file follows set / revert / reset
// and names the device by its PCI address, and a revert of an attribute that already reads its
// value before leaves it alone. The built rocmtunectl and rocmtune-helper on world copies.
#include <filesystem>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"
#include "knobs/runtime_state.h"
#include "knobs/sysfs_attributes.h"
#include "plan/owned_paths.h"

namespace rocmtune::client {
namespace {

using json = nlohmann::ordered_json;
using knobs::RuntimeSetting;
using testing::WorldCopy;

constexpr const char* kRuntimeSettingsWorld = "rx6900xt";
constexpr const char* kDevice = "0000:0c:00.0";
constexpr const char* kDeviceDir = "sys/devices/pci0000:00/0000:0c:00.0";

std::string AttrPath(std::string_view attr) { return fmt::format("{}/{}", kDeviceDir, attr); }

std::string Current(const WorldCopy& w, std::string_view attr) {
  return knobs::FindSysfsAttribute(attr)->codec->Current(w.Read(AttrPath(attr))).value_or("?");
}

std::vector<RuntimeSetting> State(const WorldCopy& w) {
  if (!w.Exists(plan::kRuntimeState)) return {};
  return knobs::ParseRuntimeState(w.Read(plan::kRuntimeState));
}

// The tree as it was, rocmtune's own var/lib/rocmtune (journal, lock) aside.
std::vector<std::string> Changed(const testing::TreeSnapshot& original, const WorldCopy& w) {
  return testing::ChangedPaths(original, w.Snapshot(), false, {"var"});
}

const json* KnobRow(const json& status, std::string_view key) {
  for (const json& k : status["knobs"])
    if (k.value("key", "") == key) return &k;
  return nullptr;
}

TEST(RuntimeSettingsTest, ResetPutsEveryRuntimeAttributeBackByteForByte) {
  WorldCopy w(kRuntimeSettingsWorld);
  auto original = w.Snapshot();
  const std::string level = Current(w, "power_dpm_force_performance_level");
  const std::string profile = Current(w, "pp_power_profile_mode");
  ASSERT_EQ(level, "auto");
  ASSERT_NE(profile, "COMPUTE");

  auto set = w.Ctl({"set", "sysfs.card0.power_dpm_force_performance_level=high",
                    "sysfs.card0.pp_power_profile_mode=COMPUTE", "--json"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  ASSERT_EQ(Current(w, "pp_power_profile_mode"), "COMPUTE");
  ASSERT_EQ(Current(w, "power_dpm_force_performance_level"), "high");

  auto reset = w.Ctl({"reset", "--json"});
  ASSERT_EQ(reset.exit_code, kExitOk) << reset.out << reset.err;
  EXPECT_EQ(testing::ResultDocumentProblems(reset.Json()), "") << reset.out;
  EXPECT_EQ(reset.Json()["changed"], true) << reset.out;
  EXPECT_EQ(Current(w, "power_dpm_force_performance_level"), level);
  EXPECT_EQ(Current(w, "pp_power_profile_mode"), profile);
  EXPECT_EQ(Changed(original, w), std::vector<std::string>{}) << "the attributes as they were, byte for byte";
  EXPECT_FALSE(w.Exists(plan::kRuntimeState));
  EXPECT_EQ(w.Ctl({"verify"}).exit_code, kExitOk);
  auto again = w.Ctl({"reset", "--json"});
  EXPECT_EQ(again.Json()["changed"], false) << again.out;
}

TEST(RuntimeSettingsTest, UnsetPutsTheValueBeforeBack) {
  WorldCopy w(kRuntimeSettingsWorld);
  auto original = w.Snapshot();
  ASSERT_EQ(w.Ctl({"set", "sysfs.card0.pp_power_profile_mode=COMPUTE"}).exit_code, kExitOk);
  auto unset = w.Ctl({"unset", fmt::format("sysfs.{}.pp_power_profile_mode", kDevice), "--json"});
  ASSERT_EQ(unset.exit_code, kExitOk) << unset.out << unset.err;
  EXPECT_EQ(unset.Json()["changed"], true) << unset.out;
  EXPECT_EQ(Changed(original, w), std::vector<std::string>{});
}

TEST(RuntimeSettingsTest, StatusAndVerifyListRocmtunesRuntimeSettings) {
  for (std::string_view attr : {"power_dpm_force_performance_level", "pp_power_profile_mode"}) {
    SCOPED_TRACE(attr);
    WorldCopy w(kRuntimeSettingsWorld);
    const std::string value = attr == "pp_power_profile_mode" ? "COMPUTE" : "high";
    const std::string untouched = w.Read(AttrPath(attr));
    ASSERT_EQ(w.Ctl({"set", fmt::format("sysfs.card0.{}={}", attr, value)}).exit_code, kExitOk);

    auto status = w.Ctl({"status", "--json"});
    ASSERT_EQ(status.exit_code, kExitOk) << status.err;
    const json doc = status.Json();
    const json* row = KnobRow(doc, fmt::format("sysfs.{}.{}", kDevice, attr));
    ASSERT_NE(row, nullptr) << status.out;
    EXPECT_EQ((*row)["owner"], "rocmtune");
    EXPECT_EQ((*row)["configured"], value);
    EXPECT_EQ((*row)["running"], value);
    EXPECT_THAT(w.Ctl({"status"}).out, ::testing::HasSubstr(fmt::format("sysfs.{}.{}", kDevice, attr)));
    EXPECT_EQ(w.Ctl({"verify"}).exit_code, kExitOk) << "the device runs rocmtune's value (a table compared by its row)";

    // A GPU reset: the driver's value is back, rocmtune's setting is not running.
    w.Write(AttrPath(attr), untouched);
    auto verify = w.Ctl({"verify", "--json"});
    EXPECT_EQ(verify.exit_code, kExitVerifyDiffers) << verify.out;
    bool found = false;
    const json differences = verify.Json()["differences"];
    for (const json& d : differences)
      if (d["kind"] == "sysfs") {
        found = true;
        EXPECT_EQ(d["configured"], value);
        EXPECT_EQ(d["subject"], fmt::format("/sys/class/drm/card0/device/{}", attr));
      }
    EXPECT_TRUE(found) << verify.out;
  }
}

// The state file after set, a second set, revert, another set and reset; by PCI address.
TEST(RuntimeSettingsTest, TheDesiredRuntimeStateFollowsEveryChange) {
  WorldCopy w(kRuntimeSettingsWorld);
  const std::string level = Current(w, "power_dpm_force_performance_level");
  const std::string profile = Current(w, "pp_power_profile_mode");
  ASSERT_EQ(w.Ctl({"set", "sysfs.card0.pp_power_profile_mode=COMPUTE"}).exit_code, kExitOk);
  EXPECT_EQ(State(w), (std::vector<RuntimeSetting>{{kDevice, "pp_power_profile_mode", "COMPUTE", profile}}));
  EXPECT_EQ(knobs::DesiredRuntime(sys::Root::Open(w.root()).value()), State(w));

  ASSERT_EQ(w.Ctl({"set", "sysfs.all.power_dpm_force_performance_level=high"}).exit_code, kExitOk);
  EXPECT_EQ(State(w), (std::vector<RuntimeSetting>{{kDevice, "pp_power_profile_mode", "COMPUTE", profile},
                                                   {kDevice, "power_dpm_force_performance_level", "high", level}}));
  ASSERT_EQ(w.Ctl({"revert", "last"}).exit_code, kExitOk);
  EXPECT_EQ(State(w), (std::vector<RuntimeSetting>{{kDevice, "pp_power_profile_mode", "COMPUTE", profile}}));

  // A second value keeps the value before the first.
  ASSERT_EQ(w.Ctl({"set", "sysfs.card0.pp_power_profile_mode=VIDEO"}).exit_code, kExitOk);
  EXPECT_EQ(State(w), (std::vector<RuntimeSetting>{{kDevice, "pp_power_profile_mode", "VIDEO", profile}}));

  // The card is numbered differently after a reboot: still the same device, still reset.
  std::filesystem::remove(w.Path("sys/class/drm/card0"));
  std::filesystem::create_directory_symlink("../../devices/pci0000:00/0000:0c:00.0/drm/card0",
                                            w.Path("sys/class/drm/card1"));
  const json status = w.Ctl({"status", "--json"}).Json();
  const json* row = KnobRow(status, fmt::format("sysfs.{}.pp_power_profile_mode", kDevice));
  ASSERT_NE(row, nullptr) << status.dump();
  EXPECT_EQ((*row)["owner"], "rocmtune");
  ASSERT_EQ(w.Ctl({"reset"}).exit_code, kExitOk);
  EXPECT_EQ(State(w), std::vector<RuntimeSetting>{});
  EXPECT_EQ(Current(w, "pp_power_profile_mode"), profile);
}

// The attribute already reads its value before (a GPU reset put it back): revert plans no write
// to it, only the record of rocmtune's setting goes.
TEST(RuntimeSettingsTest, RevertLeavesAnAttributeThatAlreadyReadsItsValueBefore) {
  WorldCopy w(kRuntimeSettingsWorld);
  const std::string untouched = w.Read(AttrPath("pp_power_profile_mode"));
  ASSERT_EQ(w.Ctl({"set", "sysfs.card0.pp_power_profile_mode=COMPUTE"}).exit_code, kExitOk);
  w.Write(AttrPath("pp_power_profile_mode"), untouched);
  auto check = w.Ctl({"revert", "last", "--check", "--json"});
  ASSERT_EQ(check.exit_code, kExitOk) << check.out << check.err;
  std::vector<std::string> paths;
  const json doc = check.Json();
  for (const json& op : doc["changes"]) paths.push_back(op.value("path", ""));
  EXPECT_EQ(paths, std::vector<std::string>{std::string(plan::kRuntimeState)}) << check.out;
  auto revert = w.Ctl({"revert", "last", "--json"});
  ASSERT_EQ(revert.exit_code, kExitOk) << revert.out << revert.err;
  EXPECT_EQ(w.Read(AttrPath("pp_power_profile_mode")), untouched);
  EXPECT_EQ(State(w), std::vector<RuntimeSetting>{});
}

// A level turned back to auto where power-profiles-daemon's amdgpu_dpm action runs: verify
// names the writer whose value it is; a value that daemon never writes (manual) is not put on it.
TEST(RuntimeSettingsTest, VerifyNamesTheDaemonWhoseValueTheAttributeHas) {
  WorldCopy w(kRuntimeSettingsWorld);
  ASSERT_EQ(w.Ctl({"set", "sysfs.card0.power_dpm_force_performance_level=high"}).exit_code, kExitOk);
  w.Write("usr/lib/systemd/system/power-profiles-daemon.service", "[Service]\n");
  w.Write("proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\n");
  auto message = [&](std::string_view level) {
    w.Write(AttrPath("power_dpm_force_performance_level"), std::string(level) + "\n");
    auto verify = w.Ctl({"verify", "--json"});
    EXPECT_EQ(verify.exit_code, kExitVerifyDiffers) << verify.out;
    const json differences = verify.Json()["differences"];
    for (const json& d : differences)
      if (d["kind"] == "sysfs") return d.value("message", "");
    return std::string();
  };
  EXPECT_THAT(message("auto"), ::testing::HasSubstr("power-profiles-daemon's amdgpu_dpm action writes auto"));
  EXPECT_THAT(message("low"), ::testing::HasSubstr("writes low (its power-saver profile)"));
  std::string manual = message("manual");
  EXPECT_THAT(manual, ::testing::Not(::testing::HasSubstr("power-profiles-daemon")));
  EXPECT_THAT(manual, ::testing::HasSubstr("a GPU reset or reboot"));
}

}  // namespace
}  // namespace rocmtune::client
