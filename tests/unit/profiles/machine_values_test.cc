// {gtt_pages} and the ttm -> amdttm rule.
#include "profiles/machine_values.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "detect/inventory.h"
#include "knobs/size_checks.h"
#include "test_tree.h"

namespace rocmtune::profiles {
namespace {

using ::testing::HasSubstr;
using testing::TestTree;

TEST(MachineValuesTest, GttPagesPolicy) {
  // (whole GiB - max(8, GiB / 8)) * 262144
  EXPECT_EQ(*GttPagesFor(131072000), 110u * 262144);  // 125 GiB -> 110 GiB
  EXPECT_EQ(*GttPagesFor(134217728), 112u * 262144);  // exactly 128 GiB -> 112 GiB
  EXPECT_EQ(*GttPagesFor(65536000), 54u * 262144);    // 62 GiB -> 54 GiB
  EXPECT_EQ(*GttPagesFor(32768000), 23u * 262144);    // 31 GiB -> 23 GiB
  EXPECT_EQ(*GttPagesFor(17825792), 9u * 262144);     // 17 GiB -> 9 GiB, just above half
  for (uint64_t small : {16777216ull, 16384000ull, 8388608ull, 1024ull}) {
    auto r = GttPagesFor(small);
    ASSERT_FALSE(r) << small;
    EXPECT_EQ(r.error().code, ErrorCode::kUnsupported);
    EXPECT_THAT(r.error().message, HasSubstr("nothing to raise"));
  }
}

// The strix-halo profile's {gtt_pages} must pass the size rules `set` applies (knobs/size_checks.h):
// never above the RAM, never below TTM's default of half of it, on every machine it is computed for.
TEST(MachineValuesTest, GttPagesPassTheSizeRules) {
  const auto& catalog = knowledge::Catalog::Builtin();
  for (uint64_t kib : {17825792ULL, 32768000ULL, 65536000ULL, 131072000ULL, 134217728ULL, 536870912ULL}) {
    TestTree t;
    t.Write("proc/meminfo", "MemTotal: " + std::to_string(kib) + " kB\n");
    auto root = *sys::Root::Open(t.path());
    detect::Inventory inventory;
    knobs::KnobContext ctx{root, inventory, catalog};
    const std::string pages = std::to_string(*GttPagesFor(kib));
    for (const char* name : {"pages_limit", "page_pool_size"}) {
      auto issues = knobs::CheckSize(ctx, name, *catalog.Find("ttm", name), pages);
      std::string said;
      for (const auto& i : issues) said += i.id + ": " + i.message + "\n";
      ASSERT_EQ(issues.size(), 1u) << kib << " kB, " << name << "=" << pages << "\n" << said;
      EXPECT_EQ(issues[0].id, "size") << said;
    }
  }
}

TEST(MachineValuesTest, ExpandValue) {
  TestTree t;
  auto root = *sys::Root::Open(t.path());
  EXPECT_EQ(*ExpandValue("pt", root), "pt");
  auto missing = ExpandValue("{gtt_pages}", root);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(missing.error().message, HasSubstr("proc/meminfo"));
  t.Write("proc/meminfo", "MemTotal:       131072000 kB\n");
  EXPECT_EQ(*ExpandValue("{gtt_pages}", root), "28835840");
}

TEST(MachineValuesTest, PlaceholderSpelling) {
  EXPECT_TRUE(IsPlaceholder("{gtt_pages}"));
  EXPECT_FALSE(LooksLikePlaceholder("{gtt_pages}"));
  EXPECT_TRUE(LooksLikePlaceholder("{gtt_pages"));
  EXPECT_TRUE(LooksLikePlaceholder("x}"));
  EXPECT_FALSE(LooksLikePlaceholder("realloc=off"));
}

TEST(MachineValuesTest, TtmKeysFollowAmdttm) {
  TestTree t;
  auto root = *sys::Root::Open(t.path());
  auto ttm = *knobs::ParseKnobKey("ttm.pages_limit");
  auto cmdline = *knobs::ParseKnobKey("cmdline.ttm.pages_limit");
  auto amdgpu = *knobs::ParseKnobKey("amdgpu.gttsize");
  EXPECT_EQ(TtmKeyForRoot(ttm, root).Text(), "ttm.pages_limit");
  t.Mkdir("sys/module/amdttm");
  EXPECT_EQ(TtmKeyForRoot(ttm, root).Text(), "amdttm.pages_limit");
  EXPECT_EQ(TtmKeyForRoot(cmdline, root).Text(), "cmdline.amdttm.pages_limit");
  EXPECT_EQ(TtmKeyForRoot(amdgpu, root).Text(), "amdgpu.gttsize");
}

}  // namespace
}  // namespace rocmtune::profiles
