// The guard on the shipped profiles: every built-in parses, every item is sourced, and every
// setting passes the same validation as `rocmtunectl set` on a machine the profile is for.
#include <filesystem>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan/intent_names.h"
#include "planner/planner.h"
#include "profile_worlds.h"
#include "profiles/desired.h"
#include "profiles/match.h"
#include "profiles/profile_store.h"

namespace rocmtune::profiles {
namespace {

using ::testing::HasSubstr;
using testing::TestTree;
using testworlds::LoadedWorld;

std::string Messages(const std::vector<plan::Message>& messages) {
  std::string out;
  for (const auto& m : messages) out += m.key + ": " + m.message + "\n";
  return out;
}

// ROCMTUNE_PROFILES (CMakeLists.txt) generates the registry: it must name every profiles/*.toml,
// so no shipped profile is installed for reading yet missing from the program.
TEST(BuiltinProfilesTest, TheRegistryHoldsEveryShippedProfileFile) {
  std::set<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(ROCMTUNE_SOURCE_DIR) / "profiles"))
    if (entry.path().extension() == ".toml") files.insert(entry.path().stem().string());
  std::set<std::string> builtins;
  for (const BuiltinProfile& b : BuiltinProfiles()) EXPECT_TRUE(builtins.insert(std::string(b.name)).second) << b.name;
  EXPECT_EQ(builtins, files);
  EXPECT_TRUE(builtins.count("stock"));
}

TEST(BuiltinProfilesTest, EveryBuiltinParsesAndIsSourced) {
  for (const BuiltinProfile& b : BuiltinProfiles()) {
    auto p = ParseProfile(b.name, b.text, b.name);
    ASSERT_TRUE(p) << p.error().message;
    EXPECT_FALSE(p->description.empty()) << b.name;
    for (const Item& item : p->items) {
      EXPECT_FALSE(item.why.empty()) << b.name << "/" << item.id;
      EXPECT_FALSE(item.source.empty()) << b.name << "/" << item.id;
      if (item.action == Action::kNote) continue;
      ASSERT_TRUE(item.key) << b.name << "/" << item.id;
      auto again = knobs::ParseKnobKey(item.key->Text());
      ASSERT_TRUE(again) << item.key->Text();
      EXPECT_EQ(*again, *item.key);
    }
  }
}

TEST(BuiltinProfilesTest, StockResetsAndNothingElseDoes) {
  TestTree t;
  ProfileStore store = ProfileStore::Load(*sys::Root::Open(t.path()));
  for (const StoreEntry& e : store.entries()) EXPECT_EQ(e.profile->reset, e.name == "stock") << e.name;
}

// RDNA1: only what is verified to matter there. mtype_local is not read on GFX10 and taints,
// noretry=0 enables retry, amd_iommu=on does not exist; 10.3.0 runs the wrong ISA.
TEST(BuiltinProfilesTest, Rdna1SafeCarriesNoSeedKnobs) {
  TestTree t;
  auto p = ProfileStore::Load(*sys::Root::Open(t.path())).Resolve("rdna1-safe");
  ASSERT_TRUE(p);
  bool unsets_override = false;
  for (const Item& item : p->items) {
    if (!item.key) continue;
    std::string key = item.key->Text();
    EXPECT_NE(key, "amdgpu.mtype_local") << item.id;
    EXPECT_NE(key, "amdgpu.noretry") << item.id;
    EXPECT_FALSE(key.starts_with("cmdline.amd_iommu")) << item.id;
    EXPECT_NE(item.action, Action::kSet) << item.id << ": rdna1-safe sets nothing";
    if (key == "env.HSA_OVERRIDE_GFX_VERSION" && item.action == Action::kUnset) unsets_override = true;
  }
  EXPECT_TRUE(unsets_override);
}

struct Case {
  std::string profile;
  std::string world_label;
  std::string root;
};

// Every built-in on every machine it is for, with every optional item asked for: the planner
// must refuse nothing, and every `set` item must have been checked somewhere.
TEST(BuiltinProfilesTest, EverySettingPassesThePlannerWhereItApplies) {
  TestTree strix_tree, strix_dkms_tree;
  std::vector<Case> cases = {
      {"rdna1-safe", "rx5700xt", testworlds::WorldPath("rx5700xt")},
      {"rdna1-safe", "rx5500xt", testworlds::WorldPath("rx5500xt")},
      {"rdna2-consumer-compat", "rx6600", testworlds::WorldPath("rx6600")},
      {"rdna2-consumer-compat", "rx6900xt", testworlds::WorldPath("rx6900xt")},
      {"rdna2-consumer-compat", "vangogh", testworlds::WorldPath("vangogh")},
      {"instinct", "mi210x8", testworlds::WorldPath("mi210x8")},
      {"instinct", "mi300x-cpx", testworlds::WorldPath("mi300x-cpx")},
      {"strix-halo", "strix-halo", testworlds::MakeStrixHalo(strix_tree, testworlds::kMeminfo128, false)},
      {"strix-halo", "strix-halo+dkms", testworlds::MakeStrixHalo(strix_dkms_tree, testworlds::kMeminfo128, true)},
      {"stock", "no-amd", testworlds::WorldPath("no-amd")},
  };
  std::set<std::string> checked;  // "profile/item" of every set item that reached the planner
  for (const Case& c : cases) {
    SCOPED_TRACE(c.profile + " on " + c.world_label);
    LoadedWorld w(c.root);
    auto p = ProfileStore::Load(w.root).Resolve(c.profile);
    ASSERT_TRUE(p) << p.error().message;
    MatchResult m = MatchProfile(*p, w.inventory);
    ASSERT_TRUE(m.matches) << m.reason;
    std::vector<std::string> all_optional;
    for (const Item& item : p->items)
      if (item.optional) all_optional.push_back(item.id);
    auto d = DesiredState(*p, w.root, w.inventory, all_optional);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_TRUE(d->refused.empty()) << Messages(d->refused);
    plan::Plan plan = plan::PlanRequest(w.Context(), d->request);
    EXPECT_TRUE(plan.refused.empty()) << Messages(plan.refused);
    for (const ItemPlan& ip : EvaluateItems(*p, w.root, w.inventory, all_optional))
      if (ip.item->action == Action::kSet && ip.verdict == Verdict::kApplies)
        checked.insert(c.profile + "/" + ip.item->id);
  }
  TestTree t;
  ProfileStore store = ProfileStore::Load(*sys::Root::Open(t.path()));
  for (const StoreEntry& e : store.entries()) {
    for (const Item& item : e.profile->items) {
      if (item.action != Action::kSet) continue;
      EXPECT_TRUE(checked.count(e.name + "/" + item.id)) << e.name << "/" << item.id << " was never validated";
    }
  }
}

// The planner really refuses what a profile could get wrong: the guard above can fail.
TEST(BuiltinProfilesTest, TheGuardCatchesABadValue) {
  LoadedWorld w(testworlds::WorldPath("rx5700xt"));
  auto p = ParseProfile("bad", R"(schema_version = 1
description = "the seed's advice"
[[items]]
id = "override"
action = "set"
key = "env.HSA_OVERRIDE_GFX_VERSION"
value = "10.3.0"
why = "w"
source = "s"
[[items]]
id = "iommu"
action = "set"
key = "cmdline.amd_iommu"
value = "on"
why = "w"
source = "s"
)",
                        "bad.toml");
  ASSERT_TRUE(p) << p.error().message;
  auto d = DesiredState(*p, w.root, w.inventory, {});
  ASSERT_TRUE(d);
  plan::Plan plan = plan::PlanRequest(w.Context(), d->request);
  EXPECT_THAT(Messages(plan.refused), HasSubstr("different ISA"));
  EXPECT_THAT(Messages(plan.refused), HasSubstr("amd_iommu=on is not an option"));
}

// The helper knows the built-ins by name only (plan/intent_names.h, below the profiles): the
// same names, in the same order, as the compiled-in registry.
TEST(BuiltinProfilesTest, TheHelpersNamesAreTheRegistrys) {
  std::vector<std::string_view> registry;
  for (const BuiltinProfile& b : BuiltinProfiles()) registry.push_back(b.name);
  auto names = plan::BuiltinProfileNames();
  EXPECT_EQ(std::vector<std::string_view>(names.begin(), names.end()), registry);
}

}  // namespace
}  // namespace rocmtune::profiles
