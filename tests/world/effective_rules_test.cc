// Every effective-value rule of the catalog on worlds of the GPUs it concerns.
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "detect/inventory.h"
#include "knobs/effective.h"
#include "knowledge/catalog.h"

namespace fs = std::filesystem;

namespace rocmtune::knobs {
namespace {

detect::Inventory Load(const std::string& world) {
  auto root = sys::Root::Open((fs::path(ROCMTUNE_WORLDS_DIR) / world).string());
  EXPECT_TRUE(root) << world;
  return detect::Detect(*root);
}

const knowledge::ModuleParam& Param(std::string_view module, std::string_view name) {
  const auto* p = knowledge::Catalog::Builtin().Find(module, name);
  EXPECT_NE(p, nullptr) << module << "." << name;
  return *p;
}

TEST(EffectiveRulesTest, EveryRuleInTheCatalogIsCoveredHere) {
  // Keep this list in step with the rules the tests below exercise.
  const std::set<std::string> covered = {"noretry-by-gc", "vm-update-mode-by-large-bar", "gttsize-follows-ttm",
                                         "mtype-local-by-gc", "ttm-half-of-ram"};
  for (const auto& p : knowledge::Catalog::Builtin().params()) {
    if (p.effective_rule) {
      EXPECT_TRUE(covered.count(*p.effective_rule)) << p.Key() << ": " << *p.effective_rule;
    }
  }
}

// amdgpu_gmc_noretry_set(): -1 means 1 on GC 9.0.1, 9.4.x, 9.5.0 and >= 10.3.0, else 0.
TEST(EffectiveRulesTest, NoretryByGc) {
  const auto& noretry = Param("amdgpu", "noretry");
  struct Case {
    const char* world;
    const char* effective;
  };
  for (Case c : {Case{"rx5700xt", "0"}, Case{"rx5500xt", "0"}, Case{"rx6600", "1"}, Case{"rx7900xtx", "1"},
                 Case{"phoenix", "1"}, Case{"vega56", "1"}, Case{"mi210x8", "1"}, Case{"rx9070xt", "1"}})
    EXPECT_EQ(EffectiveValue(noretry, "-1", Load(c.world)), c.effective) << c.world;
  EXPECT_EQ(EffectiveValue(noretry, "0", Load("rx6600")), "0");  // explicit values stand
  // GC 9.4.3 or 9.4.4 (gfx942): both in the list, so known without the exact GC.
  EXPECT_EQ(EffectiveValue(noretry, "-1", Load("mi300x-cpx")), "1");
}

// The GC 10.1 (Navi1x) default changed in 7.1 (e47b0056a08d) and reached 6.18.y/7.0.y at a point
// release: known before 6.18 and from 7.1, "unknown" in between and when the kernel is unknown.
TEST(EffectiveRulesTest, NoretryDependsOnTheKernelVersion) {
  const auto& noretry = Param("amdgpu", "noretry");
  auto navi10 = Load("rx5700xt");  // GC 10.1.10, captured on 6.8
  ASSERT_EQ(navi10.system.kernel, "6.8.0-45-generic");
  EXPECT_EQ(EffectiveValue(noretry, "-1", navi10), "0");
  navi10.system.kernel = "7.1.0-1-generic";
  EXPECT_EQ(EffectiveValue(noretry, "-1", navi10), "1");
  navi10.system.kernel = "6.18.3";
  EXPECT_EQ(EffectiveValue(noretry, "-1", navi10), "unknown for kernel 6.18");
  navi10.system.kernel = "7.0.9";
  EXPECT_EQ(EffectiveValue(noretry, "-1", navi10), "unknown for kernel 7.0");
  navi10.system.kernel = std::nullopt;
  EXPECT_EQ(EffectiveValue(noretry, "-1", navi10), "unknown for this kernel");
  EXPECT_EQ(EffectiveValue(noretry, "0", navi10), "0");  // an explicit value needs no rule
  // GC >= 10.3 did not change: known on every kernel, even an unknown one.
  auto navi23 = Load("rx6600");
  navi23.system.kernel = std::nullopt;
  EXPECT_EQ(EffectiveValue(noretry, "-1", navi23), "1");
}

// amdgpu_vm_manager_init(): -1 means 2 (CPU updates compute page tables) when all VRAM is
// CPU-visible (large BAR), else 0.
TEST(EffectiveRulesTest, VmUpdateModeByLargeBar) {
  const auto& mode = Param("amdgpu", "vm_update_mode");
  EXPECT_EQ(EffectiveValue(mode, "-1", Load("rx6900xt")), "2");  // 16 GiB visible of 16 GiB
  EXPECT_EQ(EffectiveValue(mode, "-1", Load("vega56")), "0");    // 256 MiB BAR of 8 GiB
  EXPECT_EQ(EffectiveValue(mode, "-1", Load("phoenix")), "2");   // APU
  EXPECT_FALSE(EffectiveValue(mode, "-1", Load("rx5700xt")));    // sizes not captured: unknown
}

TEST(EffectiveRulesTest, GttsizeFollowsTtmFrom65) {
  const auto& gtt = Param("amdgpu", "gttsize");
  auto strix = Load("strixpoint");  // 6.14: GTT = ttm.pages_limit
  auto pages = std::stoull(*strix.system.ttm.parameters.at("pages_limit"));
  EXPECT_EQ(EffectiveValue(gtt, "-1", strix), fmt::format("{}", pages * 4096 / (1 << 20)));  // MiB
  EXPECT_FALSE(EffectiveValue(gtt, "-1", Load("rx5500xt")));  // 6.1: another formula, not modelled
  EXPECT_EQ(EffectiveValue(gtt, "8128", strix), "8128");
}

TEST(EffectiveRulesTest, MtypeLocalOnlyAffectsGc943And950) {
  const auto& mtype = Param("amdgpu", "mtype_local");
  EXPECT_EQ(AffectedGpus(mtype, Load("mi300x-cpx")).size(), 63u);
  for (const char* w : {"rx5700xt", "rx6900xt", "phoenix", "mi210x8", "vega56"})
    EXPECT_TRUE(AffectedGpus(mtype, Load(w)).empty()) << w;
}

TEST(EffectiveRulesTest, TtmLimitsShowTheComputedValue) {
  const auto& pages = Param("ttm", "pages_limit");
  auto phoenix = Load("phoenix");
  const auto& running = *phoenix.system.ttm.parameters.at("pages_limit");
  EXPECT_EQ(EffectiveValue(pages, running, phoenix), running);
}

}  // namespace
}  // namespace rocmtune::knobs
