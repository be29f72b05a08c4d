// Profiles end to end on every world: each built-in profile that fits the world is applied
// (changing exactly what `--check` showed), applied again (nothing written, mtimes kept),
// verified, and reverted; the tree must then be byte for byte what it was. Also: a profile
// that does not fit is refused unless forced, `stock` removes everything rocmtune configured,
// and applying a profile replaces the one before.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"
#include "world_names.h"

using ::testing::HasSubstr;

namespace rocmtune::client {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using testing::WorldCopy;

// What a round trip may leave: rocmtune's own state, and the directories created to hold it.
std::vector<std::string> LeftOver(const testing::TreeSnapshot& original, const testing::TreeSnapshot& now) {
  std::vector<std::string> out;
  for (const std::string& p : testing::ChangedPaths(original, now, false, {"var/lib/rocmtune"}))
    if (!((p == "var" || p == "var/lib") && !original.count(p))) out.push_back(p);
  return out;
}

std::vector<std::string> Kinds(const json& verify) {
  std::vector<std::string> out;
  for (const auto& d : verify["differences"]) out.push_back(d.value("kind", "") + " " + d.value("subject", ""));
  return out;
}

// apply (= check), apply again, verify, revert last: back to `original` byte for byte.
void RoundTrip(const WorldCopy& w, const std::string& profile, const testing::TreeSnapshot& original) {
  SCOPED_TRACE("profile " + profile);
  auto check = w.Ctl({"apply", profile, "--check", "--json"});
  ASSERT_EQ(check.exit_code, kExitOk) << check.out << check.err;
  EXPECT_TRUE(LeftOver(original, w.Snapshot()).empty()) << "--check writes nothing";

  auto apply = w.Ctl({"apply", profile, "--json"});
  ASSERT_EQ(apply.exit_code, kExitOk) << apply.out << apply.err;
  json doc = apply.Json();
  EXPECT_EQ(testing::ResultDocumentProblems(doc), "") << apply.out;
  EXPECT_EQ(doc["check"], false);
  EXPECT_EQ(doc["changes"], check.Json()["changes"]) << "the apply changes exactly what the plan showed";
  // No profile is active here: the apply is recorded even with nothing to write, and makes the
  // profile active (the machine is in its state).
  const bool changed = doc["changed"] == true;
  EXPECT_TRUE(changed) << apply.out;
  EXPECT_TRUE(doc["transaction"].is_string()) << apply.out;

  auto mid = w.Snapshot();
  auto again = w.Ctl({"apply", profile, "--json"});
  ASSERT_EQ(again.exit_code, kExitOk) << again.out << again.err;
  EXPECT_EQ(again.Json()["changed"], false) << again.out;
  EXPECT_EQ(again.Json()["changes"], json::array());
  EXPECT_EQ(testing::ChangedPaths(mid, w.Snapshot(), true), std::vector<std::string>{})
      << "the second apply writes nothing, not even a journal file";

  auto verify = w.Ctl({"verify", "--json"});
  json v = verify.Json();
  // A --root tree leaves its regenerators pending (verify names them until they run).
  for (const std::string& d : Kinds(v))
    EXPECT_TRUE(d.starts_with("pending-reboot ") || d.starts_with("pending-regeneration "))
        << "only boot-time settings may wait for a reboot or a regeneration: " << d;
  EXPECT_EQ(verify.exit_code, v["differences"].empty() ? kExitOk : kExitVerifyDiffers);
  if (changed) {
    auto history = w.Ctl({"history", "--json"}).Json();
    EXPECT_EQ(history["active_profile"], profile);
  }

  auto revert = w.Ctl({"revert", "last", "--json"});
  ASSERT_EQ(revert.exit_code, kExitOk) << revert.out << revert.err;
  EXPECT_EQ(revert.Json()["changed"], changed) << revert.out;
  EXPECT_EQ(LeftOver(original, w.Snapshot()), std::vector<std::string>{}) << "revert puts every byte back";
}

class RoundTripTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTripTest, EveryMatchingBuiltinProfileRoundTrips) {
  WorldCopy w(GetParam());
  std::vector<std::string> profiles = testing::MatchingBuiltinProfiles(w);
  if (GetParam() == "no-amd") {
    EXPECT_EQ(profiles, std::vector<std::string>{"stock"});
  } else {
    ASSERT_THAT(profiles, ::testing::Contains("stock"));
  }
  for (const std::string& p : profiles) {
    auto original = w.Snapshot();
    RoundTrip(w, p, original);
  }
}

INSTANTIATE_TEST_SUITE_P(AllWorlds, RoundTripTest, ::testing::ValuesIn(testing::WorldNames()), [](const auto& world) {
  std::string name = world.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
});

// The acceptance case: an RDNA1 box where someone set the folklore override; rdna1-safe
// removes it, and `revert last` brings it back byte for byte.
TEST(ProfileCliTest, Rdna1SafeRemovesTheOverrideAndRevertsByteForByte) {
  WorldCopy w("rx5700xt");
  ASSERT_EQ(w.Ctl({"set", "env.HSA_OVERRIDE_GFX_VERSION=10.1.0"}).exit_code, kExitOk);
  ASSERT_TRUE(w.Exists("etc/environment.d/90-rocmtune.conf"));
  auto original = w.Snapshot();

  auto apply = w.Ctl({"apply", "rdna1-safe", "--json"});
  ASSERT_EQ(apply.exit_code, kExitOk) << apply.out << apply.err;
  json doc = apply.Json();
  EXPECT_EQ(doc["changed"], true);
  EXPECT_EQ(doc["changes"].size(), 2u) << apply.out;
  for (const auto& c : doc["changes"]) EXPECT_EQ(c["action"], "remove") << c.dump();
  EXPECT_THAT(doc["notes"].dump(), HasSubstr("mtype_local")) << "the profile says why it sets no driver option";
  EXPECT_THAT(doc["warnings"].dump(), ::testing::Not(HasSubstr("mtype_local"))) << "a note is not a warning";
  EXPECT_FALSE(w.Exists("etc/environment.d/90-rocmtune.conf"));
  EXPECT_FALSE(w.Exists("etc/profile.d/rocmtune.sh"));

  auto revert = w.Ctl({"revert", "last", "--json"});
  ASSERT_EQ(revert.exit_code, kExitOk) << revert.out;
  EXPECT_EQ(LeftOver(original, w.Snapshot()), std::vector<std::string>{});
}

// The folklore override written by hand (the seeds' fix): rocmtune does not edit files it does
// not own, so rdna1-safe changes nothing, but it must say the override stays and crashes RDNA1;
// status shows who sets it.
TEST(ProfileCliTest, Rdna1SafeNamesAHandWrittenOverrideItCannotRemove) {
  WorldCopy w("rx5700xt");
  w.Write("etc/environment", "PATH=\"/usr/local/bin:/usr/bin\"\nHSA_OVERRIDE_GFX_VERSION=\"10.3.0\"\n");
  auto original = w.Snapshot();

  auto apply = w.Ctl({"apply", "rdna1-safe", "--json"});
  ASSERT_EQ(apply.exit_code, kExitOk) << apply.out << apply.err;
  json doc = apply.Json();
  EXPECT_EQ(doc["changes"], json::array()) << "nothing to write; the apply is recorded: rdna1-safe is active";
  const std::string warnings = doc["warnings"].dump();
  EXPECT_THAT(warnings, HasSubstr("stays set to 10.3.0 by"));
  EXPECT_THAT(warnings, HasSubstr("etc/environment:2"));
  EXPECT_THAT(warnings, HasSubstr("runs gfx1030 code on 0000:28:00.0 (gfx1010, RDNA1)"));
  // One message about that line: no second warning, and no note repeating it.
  size_t about = 0;
  for (const json& m : doc["warnings"]) about += m.dump().find("etc/environment:2") != std::string::npos ? 1 : 0;
  for (const json& m : doc["notes"]) about += m.dump().find("etc/environment:2") != std::string::npos ? 1 : 0;
  EXPECT_EQ(about, 1u) << doc.dump();
  EXPECT_EQ(LeftOver(original, w.Snapshot()), std::vector<std::string>{})
      << "a file rocmtune does not own is untouched";

  auto status = w.Ctl({"status", "--json"});
  ASSERT_EQ(status.exit_code, kExitOk) << status.err;
  const json status_doc = status.Json();
  bool found = false;
  for (const auto& k : status_doc["knobs"]) {
    if (k["key"] != "env.HSA_OVERRIDE_GFX_VERSION") continue;
    found = true;
    EXPECT_EQ(k["owner"], "admin");
    EXPECT_EQ(k["configured"], "10.3.0");
    EXPECT_EQ(k["configured_in"], "etc/environment");
  }
  EXPECT_TRUE(found) << status.out;
  // The override, once: the RDNA1 known issue, at the admin's line (env.override-other-isa says
  // less and is not said beside it).
  std::string finding, where;
  size_t overrides = 0;
  for (const auto& f : status_doc["findings"])
    if (f["id"] == "issue.rdna1-override-gfx1030" || f["id"] == "env.override-other-isa") {
      ++overrides;
      finding = f["message"];
      where = fmt::format("{}:{}", f["file"].get<std::string>(), f["line"].get<int>());
    }
  EXPECT_THAT(finding, HasSubstr("HSA_OVERRIDE_GFX_VERSION=10.3.0 makes an RDNA1 GPU run RDNA2")) << status.out;
  EXPECT_EQ(where, "etc/environment:2") << status.out;
  EXPECT_EQ(overrides, 1u) << "the override, once";
  EXPECT_THAT(status.out, ::testing::Not(HasSubstr("\"env.PATH\""))) << "only variables rocmtune knows are shown";

  // Setting it through rocmtune is refused as before, and reset leaves the admin's file alone.
  auto set = w.Ctl({"set", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0", "--json"});
  EXPECT_EQ(set.exit_code, kExitRefused) << set.out;
  ASSERT_EQ(w.Ctl({"reset"}).exit_code, kExitOk);
  EXPECT_EQ(LeftOver(original, w.Snapshot()), std::vector<std::string>{});
}

TEST(ProfileCliTest, AProfileThatDoesNotFitIsRefusedUnlessForced) {
  WorldCopy w("rx5700xt");
  auto original = w.Snapshot();
  auto refused = w.Ctl({"apply", "instinct", "--json"});
  EXPECT_EQ(refused.exit_code, kExitRefused) << refused.out;
  json doc = refused.Json();
  EXPECT_EQ(testing::ResultDocumentProblems(doc), "") << refused.out;
  EXPECT_EQ(doc["changed"], false);
  EXPECT_THAT(doc["refused"].dump(), HasSubstr("does not fit this machine"));
  EXPECT_EQ(LeftOver(original, w.Snapshot()), std::vector<std::string>{});
  EXPECT_FALSE(w.Exists("var")) << "a refused apply does not even start a journal";

  auto forced = w.Ctl({"apply", "instinct", "--force", "--json"});
  ASSERT_EQ(forced.exit_code, kExitOk) << forced.out << forced.err;
  EXPECT_EQ(forced.Json()["changed"], true);
  EXPECT_THAT(forced.Json()["warnings"].dump(), HasSubstr("applied because of --force"));
  ASSERT_EQ(w.Ctl({"revert", "last"}).exit_code, kExitOk);
  EXPECT_EQ(LeftOver(original, w.Snapshot()), std::vector<std::string>{});
}

TEST(ProfileCliTest, UnknownProfileAndOptionAreUsageErrors) {
  WorldCopy w("mi210x8");
  auto unknown = w.Ctl({"apply", "no-such-profile", "--json"});
  EXPECT_EQ(unknown.exit_code, kExitUsage);
  EXPECT_THAT(unknown.err, HasSubstr("no profile 'no-such-profile'"));
  auto bad_with = w.Ctl({"apply", "instinct", "--with", "no-such-item"});
  EXPECT_EQ(bad_with.exit_code, kExitUsage);
  EXPECT_FALSE(w.Exists("var"));
}

TEST(ProfileCliTest, StockRemovesEverythingRocmtuneConfiguredAndRevertsIt) {
  WorldCopy w("mi210x8");
  ASSERT_EQ(w.Ctl({"set", "amdgpu.noretry=0", "cmdline.iommu=pt", "env.HIP_VISIBLE_DEVICES=0"}).exit_code, kExitOk);
  auto configured = w.Snapshot();

  auto stock = w.Ctl({"apply", "stock", "--json"});
  ASSERT_EQ(stock.exit_code, kExitOk) << stock.out << stock.err;
  EXPECT_EQ(stock.Json()["changed"], true);
  for (const char* owned : {"etc/modprobe.d/rocmtune.conf", "etc/default/grub.d/zz-rocmtune.cfg",
                            "etc/environment.d/90-rocmtune.conf", "etc/profile.d/rocmtune.sh"})
    EXPECT_FALSE(w.Exists(owned)) << owned;
  auto status = w.Ctl({"status", "--json"}).Json();
  for (const auto& k : status["knobs"]) EXPECT_NE(k["owner"], "rocmtune") << k.dump();

  ASSERT_EQ(w.Ctl({"revert", "last"}).exit_code, kExitOk);
  EXPECT_EQ(LeftOver(configured, w.Snapshot()), std::vector<std::string>{});
}

// An admin profile in etc/rocmtune/profiles/ replacing a built-in one: what instinct set and the
// new profile does not mention is unset; a key someone `set` by hand since is left alone.
// --with items are part of what was asked: history shows them, and the same apply again is a no-op.
TEST(ProfileCliTest, OptionalItemsAreRecordedWithTheTransaction) {
  WorldCopy w("mi210x8");
  auto first = w.Ctl({"apply", "instinct", "--with", "mi-intel-iommu-on", "--json"});
  ASSERT_EQ(first.exit_code, kExitOk) << first.out << first.err;
  EXPECT_EQ(first.Json()["changed"], true);
  const json history = w.Ctl({"history", "--json"}).Json();
  ASSERT_EQ(history["transactions"].size(), 1u);
  EXPECT_EQ(history["transactions"][0]["with"], json::array({"mi-intel-iommu-on"}));
  EXPECT_THAT(w.Ctl({"history"}).out, HasSubstr("apply instinct --with mi-intel-iommu-on"));
  auto again = w.Ctl({"apply", "instinct", "--with", "mi-intel-iommu-on", "--json"});
  EXPECT_EQ(again.Json()["changed"], false) << again.out;
}

TEST(ProfileCliTest, ApplyingAProfileReplacesTheActiveOne) {
  WorldCopy w("mi210x8");
  w.Write("etc/rocmtune/profiles/lab.toml", R"(schema_version = 1
description = "The lab's Instinct nodes"

[[items]]
id = "lab-noretry"
action = "set"
key = "amdgpu.noretry"
value = "0"
why = "test: a profile that sets a module parameter"
source = "tests/world/roundtrip_test.cc"
)");
  // Without the admin's own iommu=pt (mi210x8 has it, and then instinct writes no drop-in).
  std::string grub = w.Read("etc/default/grub");
  const std::string admin_iommu = "GRUB_CMDLINE_LINUX=\"iommu=pt\"";
  ASSERT_NE(grub.find(admin_iommu), std::string::npos) << grub;
  grub.replace(grub.find(admin_iommu), admin_iommu.size(), "GRUB_CMDLINE_LINUX=\"\"");
  w.Write("etc/default/grub", grub);
  ASSERT_EQ(w.Ctl({"apply", "instinct"}).exit_code, kExitOk);
  ASSERT_TRUE(w.Exists("etc/default/grub.d/zz-rocmtune.cfg"));

  auto lab = w.Ctl({"apply", "lab", "--json"});
  ASSERT_EQ(lab.exit_code, kExitOk) << lab.out << lab.err;
  json doc = lab.Json();
  EXPECT_THAT(doc["warnings"].dump(), HasSubstr("set by profile instinct"));
  EXPECT_FALSE(w.Exists("etc/default/grub.d/zz-rocmtune.cfg")) << "instinct's iommu=pt is gone";
  EXPECT_THAT(w.Read("etc/modprobe.d/rocmtune.conf"), HasSubstr("noretry=0"));
  auto verify = w.Ctl({"verify", "--json"}).Json();
  EXPECT_EQ(verify["active_profile"], "lab");
  for (const std::string& d : Kinds(verify)) EXPECT_FALSE(d.starts_with("profile ")) << d;

  // A hand-made change to the profile's key shows in verify, and survives switching back.
  ASSERT_EQ(w.Ctl({"set", "amdgpu.noretry=1"}).exit_code, kExitOk);
  EXPECT_THAT(Kinds(w.Ctl({"verify", "--json"}).Json()), ::testing::Contains("profile amdgpu.noretry"));
  ASSERT_EQ(w.Ctl({"apply", "instinct"}).exit_code, kExitOk);
  EXPECT_THAT(w.Read("etc/modprobe.d/rocmtune.conf"), HasSubstr("noretry=1"));
}

}  // namespace
}  // namespace rocmtune::client
