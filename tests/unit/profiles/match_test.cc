// Matching profiles against the inventories of the real worlds, and the reasons given.
#include "profiles/match.h"

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "profiles/profile_store.h"

namespace rocmtune::profiles {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

detect::Inventory WorldInventory(const std::string& world) {
  auto root = sys::Root::Open((fs::path(ROCMTUNE_WORLDS_DIR) / world).string());
  EXPECT_TRUE(root) << world;
  return detect::Detect(*root);
}

Profile Builtin(std::string_view name) {
  auto root = sys::Root::Open(ROCMTUNE_WORLDS_DIR "/no-amd");
  auto p = ProfileStore::Load(*root).Resolve(name);
  EXPECT_TRUE(p) << name;
  return *p;
}

Match M(std::vector<std::string> gfx, std::vector<knowledge::Family> family = {},
        std::optional<bool> apu = std::nullopt, bool all = false) {
  Match m;
  m.gfx = std::move(gfx);
  m.family = std::move(family);
  m.apu = apu;
  m.all = all;
  return m;
}

struct Expectation {
  const char* world;
  std::vector<std::string> matching;  // the built-ins that fit, sorted
};

// Which built-in fits which captured machine: the table the profiles exist for.
TEST(MatchTest, BuiltinsOnEveryWorld) {
  const std::vector<Expectation> table = {
      {"rx5700xt", {"rdna1-safe", "stock"}},
      {"rx5500xt", {"rdna1-safe", "stock"}},
      {"rx6600", {"rdna2-consumer-compat", "stock"}},
      {"rx6900xt", {"rdna2-consumer-compat", "stock"}},
      {"vangogh", {"rdna2-consumer-compat", "stock"}},
      {"strixpoint", {"stock"}},
      {"phoenix", {"stock"}},
      {"rx7900xtx", {"stock"}},
      {"mi210x8", {"instinct", "stock"}},
      {"mi300x-cpx", {"instinct", "stock"}},
      {"mi25", {"stock"}},
      {"no-amd", {"stock"}},
      {"hd7870", {"stock"}},
  };
  auto root = sys::Root::Open(ROCMTUNE_WORLDS_DIR "/no-amd");
  ProfileStore store = ProfileStore::Load(*root);
  for (const Expectation& e : table) {
    detect::Inventory inv = WorldInventory(e.world);
    std::vector<std::string> got;
    for (const StoreEntry& entry : store.entries())
      if (MatchProfile(*entry.profile, inv).matches) got.push_back(entry.name);
    EXPECT_EQ(got, e.matching) << e.world;
  }
}

TEST(MatchTest, ReasonsNameTheGpuAndTheTarget) {
  Profile rdna1 = Builtin("rdna1-safe");
  MatchResult yes = MatchProfile(rdna1, WorldInventory("rx5700xt"));
  EXPECT_TRUE(yes.matches);
  EXPECT_EQ(yes.reason, "matches gfx1010 on 0000:28:00.0");
  MatchResult no = MatchProfile(rdna1, WorldInventory("rx6900xt"));
  EXPECT_FALSE(no.matches);
  EXPECT_EQ(no.reason, "no GPU is gfx1010, gfx1011, gfx1012 (this machine: gfx1030)");
  MatchResult none = MatchProfile(rdna1, WorldInventory("no-amd"));
  EXPECT_FALSE(none.matches);
  EXPECT_THAT(none.reason, HasSubstr("no AMD GPU"));
}

TEST(MatchTest, ManyGpusAreSummarised) {
  MatchResult r = MatchProfile(Builtin("instinct"), WorldInventory("mi210x8"));
  EXPECT_TRUE(r.matches);
  EXPECT_EQ(r.reason, "matches gfx90a dGPU on 0000:03:00.0, 0000:26:00.0 and 6 more");
  MatchResult apu = MatchProfile(Builtin("instinct"), WorldInventory("strixpoint"));
  EXPECT_FALSE(apu.matches);
  EXPECT_EQ(apu.reason, "no GPU is gfx908, gfx90a, gfx942, gfx950 and a dGPU (this machine: gfx1150 APU)");
}

TEST(MatchTest, StockFitsEvenWithoutAnAmdGpu) {
  MatchResult r = MatchProfile(Builtin("stock"), WorldInventory("no-amd"));
  EXPECT_TRUE(r.matches);
  EXPECT_THAT(r.reason, HasSubstr("every machine"));
}

TEST(MatchTest, ProfileWithoutMatchNeedsAnAmdGpu) {
  Profile p;
  p.name = "plain";
  EXPECT_TRUE(MatchProfile(p, WorldInventory("rx6600")).matches);
  EXPECT_FALSE(MatchProfile(p, WorldInventory("no-amd")).matches);
}

TEST(MatchTest, FamilyAndApuCriteria) {
  detect::Inventory rx6600 = WorldInventory("rx6600");
  detect::Inventory strix = WorldInventory("strixpoint");
  Match rdna2 = M({}, {knowledge::Family::kRdna2});
  EXPECT_TRUE(MatchInventory(rdna2, rx6600).matches);
  MatchResult r = MatchInventory(rdna2, strix);
  EXPECT_FALSE(r.matches);
  EXPECT_EQ(r.reason, "no GPU is RDNA2 (this machine: gfx1150 RDNA3.5)");
  Match apu = M({}, {}, true);
  EXPECT_TRUE(MatchInventory(apu, strix).matches);
  EXPECT_EQ(MatchInventory(apu, rx6600).reason, "no GPU is an APU (this machine: gfx1032 dGPU)");
  // Every criterion must hold for one GPU: RDNA2 and APU is the Steam Deck, not the RX 6600.
  Match rdna2_apu = M({}, {knowledge::Family::kRdna2}, true);
  EXPECT_FALSE(MatchInventory(rdna2_apu, rx6600).matches);
  EXPECT_TRUE(MatchInventory(rdna2_apu, WorldInventory("vangogh")).matches);
}

detect::Gpu FakeGpu(std::string id, std::optional<std::string> gfx) {
  detect::Gpu g;
  g.id = std::move(id);
  g.gfx_target = std::move(gfx);
  return g;
}

TEST(MatchTest, AllNeedsEveryGpu) {
  detect::Inventory mixed;
  mixed.gpus = {FakeGpu("0000:03:00.0", "gfx1030"), FakeGpu("0000:04:00.0", "gfx1032")};
  Match only_1030 = M({"gfx1030"}, {}, std::nullopt, true);
  MatchResult r = MatchInventory(only_1030, mixed);
  EXPECT_FALSE(r.matches);
  EXPECT_EQ(r.reason, "not every GPU is gfx1030 (gfx1032 on 0000:04:00.0)");
  Match rdna2_all = M({"gfx1030", "gfx1032"}, {}, std::nullopt, true);
  MatchResult ok = MatchInventory(rdna2_all, mixed);
  EXPECT_TRUE(ok.matches);
  EXPECT_EQ(ok.reason, "every GPU is gfx1030, gfx1032: gfx1030, gfx1032 on 0000:03:00.0, 0000:04:00.0");
  Match any_1030 = M({"gfx1030"});
  EXPECT_TRUE(MatchInventory(any_1030, mixed).matches);
}

TEST(MatchTest, UnknownGfxMatchesNoTarget) {
  detect::Inventory inv;
  inv.gpus = {FakeGpu("0000:03:00.0", std::nullopt)};
  MatchResult r = MatchInventory(M({"gfx1030"}), inv);
  EXPECT_FALSE(r.matches);
  EXPECT_EQ(r.reason, "no GPU is gfx1030 (this machine: unknown gfx target)");
}

TEST(MatchTest, ItemWithoutMatchApplies) {
  Item item;
  EXPECT_TRUE(MatchItem(item, detect::Inventory{}).matches);
  item.match = M({"gfx1030"});
  EXPECT_FALSE(MatchItem(item, WorldInventory("rx6600")).matches);
  EXPECT_TRUE(MatchItem(item, WorldInventory("rx6900xt")).matches);
}

}  // namespace
}  // namespace rocmtune::profiles
