// Every world under tests/worlds: the status document equals its reviewed golden file,
// the CLI prints exactly that document, and the facts the captures prove hold.
// ROCMTUNE_UPDATE_GOLDEN=1 rewrites the golden files (review the diff before committing).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/status.h"
#include "api/status_json.h"
#include "cli_runner.h"
#include "detect/inventory.h"
#include "test_tree.h"
#include "util/json_text.h"
#include "world_names.h"

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace rocmtune {
namespace {

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string StatusText(const std::string& world) {
  auto root = sys::Root::Open(fs::path(ROCMTUNE_WORLDS_DIR) / world);
  EXPECT_TRUE(root) << world;
  return JsonText(*api::DescribeSystem(*root)) + "\n";
}

class WorldStatusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(WorldStatusTest, MatchesGolden) {
  const std::string world = GetParam();
  std::string actual = StatusText(world);
  fs::path golden = fs::path(ROCMTUNE_GOLDEN_DIR) / world / "status.json";
  if (std::getenv("ROCMTUNE_UPDATE_GOLDEN")) {
    fs::create_directories(golden.parent_path());
    std::ofstream(golden, std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << golden << " (review the diff)";
  }
  ASSERT_TRUE(fs::exists(golden)) << golden << " missing; run with ROCMTUNE_UPDATE_GOLDEN=1 and review";
  EXPECT_EQ(actual, ReadAll(golden)) << "status of " << world << " differs from " << golden;
}

TEST_P(WorldStatusTest, CliPrintsOneJsonDocumentAndNothingElse) {
  const std::string world = GetParam();
  testing::TestTree scratch;
  testing::CliResult r = testing::RunCtl(testing::WorldPath(world), {"status", "--json"}, scratch.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string& out = r.out;
  json doc = json::parse(out);  // throws (fails the test) on anything but one document
  EXPECT_EQ(doc["schema"], "rocmtune.status.v1");
  EXPECT_EQ(out, StatusText(world));
}

// The CLI adds nothing of its own: with settings in the environment files (which status reads
// through the knobs, not detection) its document is still the core's, findings included.
TEST_P(WorldStatusTest, CliEqualsTheCoreWithEnvironmentOverrides) {
  testing::WorldCopy w(GetParam());
  // An override of another generation than every GPU here (gfx11 worlds get gfx1030's).
  json before = json::parse(StatusText(GetParam()));
  bool gpus = false, gfx11 = false;
  for (const auto& gpu : before["gpus"]) {
    gpus |= gpu["gfx_target"].is_string();
    gfx11 |= gpu["gfx_target"].is_string() && gpu["gfx_target"].get<std::string>().starts_with("gfx11");
  }
  std::string env = w.Exists("etc/environment") ? w.Read("etc/environment") : "";
  w.Write("etc/environment", env + (gfx11 ? "HSA_OVERRIDE_GFX_VERSION=10.3.0\n" : "HSA_OVERRIDE_GFX_VERSION=11.0.0\n"));
  testing::CliResult r = w.Ctl({"status", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto root = sys::Root::Open(w.root());
  ASSERT_TRUE(root);
  json core = *api::DescribeSystem(*root);
  EXPECT_EQ(r.out, JsonText(core) + "\n");
  bool found = false;
  for (const auto& f : core["findings"]) found |= f["id"] == "env.override-other-isa";
  EXPECT_EQ(found, gpus) << GetParam() << ": " << r.out;
}

TEST_P(WorldStatusTest, EveryGpuHasTheContractFields) {
  json doc = json::parse(StatusText(GetParam()));
  std::set<std::string> ids;
  for (const auto& gpu : doc["gpus"]) {
    for (const char* key : {"id", "card", "render_node", "pci_id", "revision", "marketing_name", "gfx_target", "gc_ip",
                            "family", "apu", "vram_bytes", "kfd_node", "physical_id"})
      EXPECT_TRUE(gpu.contains(key)) << GetParam() << " gpu lacks " << key;
    EXPECT_TRUE(ids.insert(gpu["id"]).second) << "duplicate id " << gpu["id"];
    if (!gpu["family"].is_null()) {
      static const std::set<std::string> kFamilies = {"GCN3",    "GCN4",  "GCN5",  "RDNA1", "RDNA2", "RDNA3",
                                                      "RDNA3.5", "RDNA4", "CDNA1", "CDNA2", "CDNA3", "CDNA4"};
      EXPECT_TRUE(kFamilies.count(gpu["family"])) << gpu["family"];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllWorlds, WorldStatusTest, ::testing::ValuesIn(testing::WorldNames()),
                         [](const auto& param_info) {
                           std::string name = param_info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// What the captures prove (each world's PROVENANCE.md), independent of the golden files.
struct Expected {
  size_t gpus;
  size_t physical;
  const char* gfx_target;  // of every GPU; nullptr: unknown
  const char* family;      // nullptr: null
  const char* identified_by;
};

const std::map<std::string, Expected>& Expectations() {
  static const std::map<std::string, Expected> kExpected = {
      {"rx5700xt", {1, 1, "gfx1010", "RDNA1", "pci_table"}},
      {"rx5500xt", {1, 1, "gfx1012", "RDNA1", "pci_table"}},
      {"rx6900xt", {1, 1, "gfx1030", "RDNA2", "pci_table"}},
      {"rx6600", {1, 1, "gfx1032", "RDNA2", "pci_table"}},
      {"rx7900xtx", {1, 1, "gfx1100", "RDNA3", "pci_table"}},
      {"rx7800xt", {1, 1, "gfx1101", "RDNA3", "pci_table"}},
      {"phoenix", {1, 1, "gfx1103", "RDNA3", "kfd"}},
      {"strixpoint", {1, 1, "gfx1150", "RDNA3.5", "kfd"}},
      {"vangogh", {1, 1, "gfx1033", "RDNA2", "kfd"}},
      {"rx9070xt", {1, 1, "gfx1201", "RDNA4", "pci_table"}},
      {"vega56", {1, 1, "gfx900", "GCN5", "pci_table"}},
      {"rx580", {1, 1, "gfx803", "GCN4", "pci_table"}},
      {"r9-280", {1, 1, nullptr, nullptr, "none"}},
      {"hd7870", {0, 0, nullptr, nullptr, nullptr}},
      {"mi210x8", {8, 8, "gfx90a", "CDNA2", "kfd"}},
      // The capture holds 63 partitions: the eighth MI300X shows 7 of its 8 (PROVENANCE.md).
      {"mi300x-cpx", {63, 8, "gfx942", "CDNA3", "kfd"}},
      {"mi25", {1, 1, "gfx900", "GCN5", "pci_table"}},
      {"no-amd", {0, 0, nullptr, nullptr, nullptr}},
  };
  return kExpected;
}

TEST(WorldFactsTest, EveryRequiredWorldExists) {
  auto worlds = testing::WorldNames();
  for (const auto& [name, _] : Expectations())
    EXPECT_NE(std::find(worlds.begin(), worlds.end(), name), worlds.end()) << "world " << name << " missing";
}

TEST(WorldFactsTest, CapturesAreIdentifiedAsTheyReallyAre) {
  for (const auto& [name, want] : Expectations()) {
    if (!fs::exists(fs::path(ROCMTUNE_WORLDS_DIR) / name)) continue;  // reported above
    json doc = json::parse(StatusText(name));
    const json& gpus = doc["gpus"];
    EXPECT_EQ(gpus.size(), want.gpus) << name;
    std::set<std::string> physical;
    for (const auto& g : gpus) {
      physical.insert(g["physical_id"]);
      if (want.gfx_target) {
        EXPECT_EQ(g["gfx_target"], want.gfx_target) << name;
      } else {
        EXPECT_TRUE(g["gfx_target"].is_null()) << name;
      }
      if (want.family) {
        EXPECT_EQ(g["family"], want.family) << name;
      } else {
        EXPECT_TRUE(g["family"].is_null()) << name;
      }
      EXPECT_EQ(g["identified_by"], want.identified_by) << name;
    }
    EXPECT_EQ(physical.size(), want.physical) << name;
  }
}

}  // namespace
}  // namespace rocmtune
