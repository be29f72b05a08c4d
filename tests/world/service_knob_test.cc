// service.power-profiles-daemon.amdgpu_dpm=off (knobs/service_backend.h) through rocmtunectl on
// copies of rx6900xt with power-profiles-daemon's files: the drop-in planned, written and shown
// (status, explain, the finding turns info), `revert` and `reset` leave the tree byte for byte as
// it was (var/, where the journal is, aside; the world has no var/ before), an edit of the drop-in is drift, the unit's
// own arguments and an admin's ExecStart= override are kept; refused for Debian 12's 0.12 (no amdgpu_dpm in the
// binary), a binary without --block-action, tuned-ppd, a command that is not the daemon, a
// missing binary, another value and another service key. A world is no running system: the
// `systemctl daemon-reload` it plans is left pending (the live runs are in the VM scenario).
#include <filesystem>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"
#include "plan/owned_paths.h"

namespace fs = std::filesystem;

namespace rocmtune::client {
namespace {

using json = nlohmann::ordered_json;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::WorldCopy;

constexpr const char* kKey = "service.power-profiles-daemon.amdgpu_dpm";
constexpr const char* kUnit = "lib/systemd/system/power-profiles-daemon.service";
constexpr const char* kBinary = "usr/libexec/power-profiles-daemon";

// The strings a power-profiles-daemon with the action and the option has in its binary.
std::string Binary(bool action = true, bool option = true) {
  std::string b(
      "\x7f"
      "ELF\0\0",
      6);
  if (option) b += std::string("--block-action\0", 15);
  if (action) b += std::string("amdgpu_dpm\0", 11);
  return b;
}

void Install(const WorldCopy& w, std::string_view exec = "/usr/libexec/power-profiles-daemon") {
  w.Write(kUnit, fmt::format("[Unit]\nDescription=Power Profiles daemon\n[Service]\nType=dbus\n"
                             "BusName=org.freedesktop.UPower.PowerProfiles\nExecStart={}\n[Install]\n"
                             "WantedBy=graphical.target\n",
                             exec));
  w.Write(kBinary, Binary());
  fs::create_directories(w.Path("etc/systemd/system/graphical.target.wants"));
  fs::create_symlink("/lib/systemd/system/power-profiles-daemon.service",
                     w.Path("etc/systemd/system/graphical.target.wants/power-profiles-daemon.service"));
  w.Write("proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\n");
}

json Finding(const WorldCopy& w) {
  auto status = w.Ctl({"status", "--json"});
  const json doc = status.Json();  // a local: range-for over a temporary's member dangles
  json found;
  for (const json& f : doc["findings"])
    if (f["id"] == "writer.power-profiles-daemon") found = f;
  return found;
}

TEST(ServiceKnobTest, SetShowsRevertsByteForByte) {
  WorldCopy w("rx6900xt");
  Install(w);
  EXPECT_EQ(Finding(w)["severity"], "warning");
  const auto before = w.Snapshot();

  auto check = w.Ctl({"set", fmt::format("{}=off", kKey), "--check", "--json"});
  ASSERT_EQ(check.exit_code, kExitOk) << check.out << check.err;
  const json changes = check.Json()["changes"];
  ASSERT_EQ(changes.size(), 2u) << check.out;
  EXPECT_EQ(changes[0]["path"], plan::kPpdDropIn);
  EXPECT_THAT(changes[0]["diff"].get<std::string>(),
              HasSubstr("+ExecStart=\n+ExecStart=/usr/libexec/power-profiles-daemon --block-action=amdgpu_dpm\n"));
  EXPECT_EQ(changes[1]["path"], "systemctl");
  EXPECT_EQ(check.Json()["reboot_required"], false) << check.out;
  EXPECT_TRUE(testing::ChangedPaths(before, w.Snapshot(), false).empty()) << "--check writes nothing";

  auto set = w.Ctl({"set", fmt::format("{}=off", kKey)});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  EXPECT_THAT(set.out, HasSubstr("Transaction 1 committed"));
  EXPECT_THAT(w.Read(plan::kPpdDropIn), HasSubstr("--block-action=amdgpu_dpm"));
  json f = Finding(w);
  EXPECT_EQ(f["severity"], "info") << f.dump();
  EXPECT_THAT(f["message"].get<std::string>(), HasSubstr("starts with its amdgpu_dpm action blocked"));
  auto status = w.Ctl({"status", "--json"});
  const json doc = status.Json();
  json knob;
  for (const json& k : doc["knobs"])
    if (k["key"] == kKey) knob = k;
  EXPECT_EQ(knob["configured"], "off") << status.out;
  EXPECT_EQ(knob["owner"], "rocmtune") << status.out;
  EXPECT_THAT(w.Ctl({"explain", kKey}).out, HasSubstr("--block-action=amdgpu_dpm"));
  // Idempotent: a second set plans nothing.
  auto again = w.Ctl({"set", fmt::format("{}=off", kKey), "--json"});
  EXPECT_EQ(again.Json()["changed"], false) << again.out;

  auto revert = w.Ctl({"revert", "1"});
  ASSERT_EQ(revert.exit_code, kExitOk) << revert.out << revert.err;
  EXPECT_THAT(revert.out, Not(HasSubstr("reboot"))) << revert.out;
  EXPECT_EQ(testing::ChangedPaths(before, w.Snapshot(), false, {"var"}), std::vector<std::string>{})
      << "revert leaves every file as it was, byte for byte";
  EXPECT_EQ(Finding(w)["severity"], "warning");

  // reset removes it too; an edit in between is drift.
  ASSERT_EQ(w.Ctl({"set", fmt::format("{}=off", kKey)}).exit_code, kExitOk);
  w.Write(plan::kPpdDropIn, w.Read(plan::kPpdDropIn) + "Environment=G_MESSAGES_DEBUG=all\n");
  auto verify = w.Ctl({"verify"});
  EXPECT_NE(verify.exit_code, kExitOk);
  EXPECT_THAT(verify.out, HasSubstr("50-rocmtune.conf")) << verify.out;
  w.Write(plan::kPpdDropIn, w.Read(plan::kPpdDropIn).substr(0, w.Read(plan::kPpdDropIn).rfind("Environment=")));
  auto reset = w.Ctl({"reset"});
  ASSERT_EQ(reset.exit_code, kExitOk) << reset.out << reset.err;
  EXPECT_EQ(testing::ChangedPaths(before, w.Snapshot(), false, {"var"}), std::vector<std::string>{});
}

TEST(ServiceKnobTest, TheUnitsArgumentsAndAnAdminsOverrideAreKept) {
  WorldCopy w("rx6900xt");
  Install(w, "/usr/libexec/power-profiles-daemon --verbose");
  w.Write(
      "etc/systemd/system/power-profiles-daemon.service.d/10-debug.conf",
      "[Service]\nExecStart=\nExecStart=/usr/libexec/power-profiles-daemon --verbose --block-driver=intel_pstate\n");
  ASSERT_EQ(w.Ctl({"set", fmt::format("{}=off", kKey)}).exit_code, kExitOk);
  EXPECT_THAT(w.Read(plan::kPpdDropIn),
              HasSubstr("\nExecStart=/usr/libexec/power-profiles-daemon --verbose --block-driver=intel_pstate "
                        "--block-action=amdgpu_dpm\n"));
}

// The admin blocked the action already: rocmtune's drop-in would only repeat it, and says so;
// status names the admin as the owner until then.
TEST(ServiceKnobTest, AnAdminsBlockIsSaidAndKept) {
  WorldCopy w("rx6900xt");
  Install(w);
  const std::string admin = "etc/systemd/system/power-profiles-daemon.service.d/10-admin.conf";
  w.Write(admin, "[Service]\nExecStart=\nExecStart=/usr/libexec/power-profiles-daemon --block-action amdgpu_dpm\n");
  auto status = w.Ctl({"status", "--json"});
  const json doc = status.Json();
  json knob;
  for (const json& k : doc["knobs"])
    if (k["key"] == kKey) knob = k;
  EXPECT_EQ(knob["owner"], "admin") << status.out;
  auto set = w.Ctl({"set", fmt::format("{}=off", kKey)});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  EXPECT_THAT(set.out + set.err, HasSubstr("/" + admin + " blocks the action already"));
  EXPECT_THAT(w.Read(admin), HasSubstr("--block-action amdgpu_dpm")) << "the admin's file is left as it was";
}

TEST(ServiceKnobTest, RefusedWhereThereIsNothingToSettleOrNoWayTo) {
  struct Case {
    const char* what;
    void (*arrange)(const WorldCopy&);
    const char* value;
    const char* says;
  };
  const Case cases[] = {
      {"Debian 12's 0.12", [](const WorldCopy& w) { w.Write(kBinary, Binary(/*action=*/false, /*option=*/false)); },
       "off", "has no amdgpu_dpm action"},
      {"no --block-action", [](const WorldCopy& w) { w.Write(kBinary, Binary(true, false)); }, "off",
       "has no --block-action option"},
      {"another program",
       [](const WorldCopy& w) {
         w.Write("etc/systemd/system/power-profiles-daemon.service.d/10-x.conf",
                 "[Service]\nExecStart=\nExecStart=/bin/sh -c 'echo hi'\n");
       },
       "off", "not a power-profiles-daemon binary"},
      {"a quoted argument",
       [](const WorldCopy& w) {
         w.Write("etc/systemd/system/power-profiles-daemon.service.d/10-x.conf",
                 "[Service]\nExecStart=\nExecStart=/usr/libexec/power-profiles-daemon \"--x=1\"\n");
       },
       "off", "does not copy into a drop-in"},
      {"no binary", [](const WorldCopy& w) { fs::remove(w.Path(kBinary)); }, "off", "which is not there"},
      {"tuned-ppd",
       [](const WorldCopy& w) {
         fs::remove(w.Path(kUnit));
         w.Write("usr/lib/systemd/system/tuned-ppd.service", "[Service]\nExecStart=/usr/sbin/tuned-ppd\n");
         fs::create_directories(w.Path("etc/systemd/system/multi-user.target.wants"));
         fs::create_symlink("/usr/lib/systemd/system/tuned-ppd.service",
                            w.Path("etc/systemd/system/multi-user.target.wants/tuned-ppd.service"));
       },
       "off", "tuned-ppd answers"},
      {"not installed", [](const WorldCopy& w) { fs::remove(w.Path(kUnit)); }, "off", "is not installed here"},
      {"another value", [](const WorldCopy&) {}, "on", "takes only `off`"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    WorldCopy w("rx6900xt");
    Install(w);
    c.arrange(w);
    const auto before = w.Snapshot();
    auto set = w.Ctl({"set", fmt::format("{}={}", kKey, c.value)});
    EXPECT_EQ(set.exit_code, kExitRefused) << set.out << set.err;
    EXPECT_THAT(set.out + set.err, HasSubstr(c.says));
    EXPECT_TRUE(testing::ChangedPaths(before, w.Snapshot(), false).empty());
  }
  WorldCopy w("rx6900xt");
  Install(w);
  auto other = w.Ctl({"set", "service.lactd.amdgpu_dpm=off"});
  EXPECT_EQ(other.exit_code, kExitRefused) << other.out << other.err;
  EXPECT_THAT(other.out + other.err, HasSubstr("there is one: service.power-profiles-daemon.amdgpu_dpm"));
}

}  // namespace
}  // namespace rocmtune::client
