// The built rocmtunectl's `profiles` and `show` verbs on the worlds: documents, text, exit codes.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "profiles/profile_store.h"
#include "test_tree.h"
#include "world_names.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;

using CtlRun = rocmtune::testing::CliResult;

// Runs rocmtunectl --root ROOT ARGS (ARGS: fixed test words, split at spaces).
CtlRun Ctl(const fs::path& root, const std::string& args) {
  std::vector<std::string> words;
  std::istringstream in(args);
  for (std::string w; in >> w;) words.push_back(w);
  rocmtune::testing::TestTree scratch;  // under $TMPDIR
  return rocmtune::testing::RunCtl(root.string(), words, scratch.path());
}

fs::path World(const std::string& name) { return rocmtune::testing::WorldPath(name); }

// A copy of a world with admin profiles in etc/rocmtune/profiles.
class AdminWorld {
 public:
  explicit AdminWorld(const std::string& world) {
    fs::copy(World(world), root(), fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
  fs::path root() const { return fs::path(dir_.path()) / "root"; }
  void Write(const std::string& name, const std::string& text) const {
    fs::create_directories(root() / "etc/rocmtune/profiles");
    std::ofstream(root() / "etc/rocmtune/profiles" / name, std::ios::binary) << text;
  }

 private:
  rocmtune::testing::TestTree dir_;  // under $TMPDIR
};

const json* Row(const json& doc, const std::string& name) {
  for (const json& p : doc["profiles"])
    if (p["name"] == name) return &p;
  return nullptr;
}

TEST(ProfilesCliTest, ListJsonOnRdna1) {
  CtlRun r = Ctl(World("rx5700xt"), "profiles --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);  // exactly one document on stdout
  EXPECT_EQ(doc["schema"], "rocmtune.profiles.v1");
  ASSERT_EQ(doc["profiles"].size(), rocmtune::profiles::BuiltinProfiles().size());
  const json* rdna1 = Row(doc, "rdna1-safe");
  ASSERT_NE(rdna1, nullptr);
  EXPECT_EQ((*rdna1)["origin"], "builtin");
  EXPECT_EQ((*rdna1)["matches"], true);
  EXPECT_EQ((*rdna1)["reason"], "matches gfx1010 on 0000:28:00.0");
  EXPECT_TRUE((*rdna1)["error"].is_null());
  const json* instinct = Row(doc, "instinct");
  ASSERT_NE(instinct, nullptr);
  EXPECT_EQ((*instinct)["matches"], false);
  EXPECT_THAT((*instinct)["reason"].get<std::string>(), HasSubstr("this machine: gfx1010"));
  EXPECT_EQ((*Row(doc, "stock"))["reset"], true);
  EXPECT_TRUE(doc["errors"].empty());
}

TEST(ProfilesCliTest, ListTextIsAnAlignedTable) {
  CtlRun r = Ctl(World("rx6600"), "profiles");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("NAME                   ORIGIN   MATCHES  DESCRIPTION"));
  EXPECT_THAT(r.out, HasSubstr("rdna2-consumer-compat  builtin  yes"));
  EXPECT_THAT(r.out, HasSubstr("matches gfx1032 on 0000:12:00.0"));
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "no colours";
}

TEST(ProfilesCliTest, AdminFilesOverrideAndBrokenOnesAreListed) {
  AdminWorld w("rx5700xt");
  w.Write("rdna1-safe.toml", "schema_version = 1\ndescription = \"site RDNA1 rules\"\n[match]\nfamily = [\"RDNA1\"]\n");
  w.Write("broken.toml", "schema_version = 1\n[[items\n");
  CtlRun r = Ctl(w.root(), "profiles --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["profiles"].size(), rocmtune::profiles::BuiltinProfiles().size() + 1);  // + broken
  const json* rdna1 = Row(doc, "rdna1-safe");
  ASSERT_NE(rdna1, nullptr);
  EXPECT_THAT((*rdna1)["origin"].get<std::string>(), HasSubstr("etc/rocmtune/profiles/rdna1-safe.toml"));
  EXPECT_EQ((*rdna1)["overrides_builtin"], true);
  EXPECT_EQ((*rdna1)["description"], "site RDNA1 rules");
  EXPECT_EQ((*rdna1)["reason"], "matches gfx1010 RDNA1 on 0000:28:00.0");  // the admin file's family match
  const json* broken = Row(doc, "broken");
  ASSERT_NE(broken, nullptr);
  EXPECT_TRUE((*broken)["matches"].is_null());
  EXPECT_THAT((*broken)["error"].get<std::string>(), HasSubstr("broken.toml"));

  CtlRun show = Ctl(w.root(), "show broken");
  EXPECT_EQ(show.exit_code, 1);
  EXPECT_THAT(show.err, HasSubstr("broken.toml"));
  EXPECT_TRUE(show.out.empty());
  CtlRun text = Ctl(w.root(), "profiles");
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_THAT(text.out, HasSubstr("broken "));
  EXPECT_THAT(text.out, HasSubstr("error"));
}

TEST(ProfilesCliTest, ShowJsonHasEveryItemWithItsSource) {
  CtlRun r = Ctl(World("rx5700xt"), "show rdna1-safe --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["schema"], "rocmtune.profile.v1");
  EXPECT_EQ(doc["name"], "rdna1-safe");
  EXPECT_EQ(doc["matches"], true);
  EXPECT_EQ(doc["match"]["gfx"], json({"gfx1010", "gfx1011", "gfx1012"}));
  ASSERT_EQ(doc["items"].size(), 5u);
  const json& first = doc["items"][0];
  EXPECT_EQ(first["id"], "rdna1-unset-override");
  EXPECT_EQ(first["action"], "unset");
  EXPECT_EQ(first["key"], "env.HSA_OVERRIDE_GFX_VERSION");
  EXPECT_TRUE(first["value"].is_null());
  EXPECT_EQ(first["here"]["verdict"], "applies");
  for (const json& item : doc["items"]) {
    EXPECT_FALSE(item["why"].get<std::string>().empty()) << item["id"];
    EXPECT_FALSE(item["source"].get<std::string>().empty()) << item["id"];
  }
}

TEST(ProfilesCliTest, ShowTextPointsRdna1UsersToExplain) {
  CtlRun r = Ctl(World("rx5700xt"), "show rdna1-safe");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rdna1-safe (builtin)\n"));
  EXPECT_THAT(r.out, HasSubstr("  here:     yes: matches gfx1010 on 0000:28:00.0\n"));
  EXPECT_THAT(r.out, HasSubstr("rdna1-unset-override: unset env.HSA_OVERRIDE_GFX_VERSION\n"));
  EXPECT_THAT(r.out, HasSubstr("rocmtunectl explain amdgpu.mtype_local"));
  // ... and explain still says why that knob does nothing on this GPU.
  CtlRun explain = Ctl(World("rx5700xt"), "explain amdgpu.mtype_local");
  ASSERT_EQ(explain.exit_code, 0) << explain.err;
  EXPECT_THAT(explain.out, HasSubstr("on 0000:28:00.0 (gfx1010, GC 10.1.10): no effect"));
}

TEST(ProfilesCliTest, ShowOnAMachineItDoesNotFit) {
  CtlRun r = Ctl(World("strixpoint"), "show strix-halo --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["matches"], false);
  EXPECT_EQ(doc["reason"], "no GPU is gfx1151 (this machine: gfx1150)");
  for (const json& item : doc["items"]) EXPECT_EQ(item["here"]["verdict"], "skipped") << item["id"];
}

TEST(ProfilesCliTest, ShowErrorsAreUsageErrors) {
  CtlRun unknown = Ctl(World("rx6600"), "show rdna3-fast");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("no profile named 'rdna3-fast'"));
  EXPECT_TRUE(unknown.out.empty());
  CtlRun with = Ctl(World("rx6600"), "show strix-halo --with nope --json");
  EXPECT_EQ(with.exit_code, 2);
  EXPECT_THAT(with.err, HasSubstr("has no item 'nope'"));
  // Under --json the failure is one rocmtune.error.v1 document.
  json error = json::parse(with.out);
  EXPECT_EQ(error["schema"], "rocmtune.error.v1");
  EXPECT_EQ(error["code"], "invalid-argument");
  EXPECT_THAT(error["message"].get<std::string>(), HasSubstr("has no item 'nope'"));
  CtlRun ok = Ctl(World("rx6600"), "show instinct --with mi-intel-iommu-on");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

}  // namespace
