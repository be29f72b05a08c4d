// The size knobs' rules (knobs/size_checks.h) on a tree whose proc/meminfo the test chooses:
// every size parameter, the boundaries (exactly the RAM, one page more, the auto sentinels, 0),
// numbers that overflow when multiplied by the page size, and an unknown RAM.
#include "knobs/size_checks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "knobs/knob_key.h"
#include "test_tree.h"

namespace rocmtune::knobs {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::TestTree;

constexpr const char* k32Gib = "MemTotal:       33554432 kB\n";  // exactly 32 GiB = 8388608 pages

struct Machine {
  explicit Machine(const char* meminfo) {
    if (meminfo) tree.Write("proc/meminfo", meminfo);
    root.emplace(*sys::Root::Open(tree.path()));
  }
  std::vector<SettingIssue> Check(std::string_view key_text, std::string_view value) const {
    auto key = ParseKnobKey(key_text);
    EXPECT_TRUE(key) << key_text;
    const knowledge::ModuleParam* param = SizeParam(knowledge::Catalog::Builtin(), *key);
    EXPECT_NE(param, nullptr) << key_text;
    if (!param) return {};
    KnobContext ctx{*root, inventory, knowledge::Catalog::Builtin()};
    return CheckSize(ctx, key_text, *param, value);
  }
  TestTree tree;
  std::optional<sys::Root> root;
  detect::Inventory inventory;
};

std::string Ids(const std::vector<SettingIssue>& issues) {
  std::string out;
  for (const auto& i : issues) out += (out.empty() ? "" : ",") + i.id;
  return out;
}

TEST(SizeChecksTest, EverySizeKnobAndNoOther) {
  const auto& catalog = knowledge::Catalog::Builtin();
  for (const char* k : {"ttm.pages_limit", "ttm.page_pool_size", "ttm.dma32_pages_limit", "amdttm.pages_limit",
                        "amdttm.page_pool_size", "cmdline.ttm.pages_limit", "cmdline.amdttm.page_pool_size"}) {
    const auto* p = SizeParam(catalog, *ParseKnobKey(k));
    ASSERT_NE(p, nullptr) << k;
    EXPECT_EQ(p->unit, knowledge::SizeUnit::kPage) << k;
  }
  for (const char* k : {"amdgpu.gttsize", "cmdline.amdgpu.gttsize"}) {
    const auto* p = SizeParam(catalog, *ParseKnobKey(k));
    ASSERT_NE(p, nullptr) << k;
    EXPECT_EQ(p->unit, knowledge::SizeUnit::kMib) << k;
  }
  // gartsize is MiB too, but a GART, not memory taken from RAM: not checked against it.
  for (const char* k : {"amdgpu.noretry", "amdgpu.gartsize", "cmdline.iommu", "env.HSA_OVERRIDE_GFX_VERSION"})
    EXPECT_EQ(SizeParam(catalog, *ParseKnobKey(k)), nullptr) << k;
}

TEST(SizeChecksTest, ExactlyTheRamIsAllowedOnePageMoreIsRefusedUnlessForced) {
  Machine m(k32Gib);
  auto exact = m.Check("ttm.pages_limit", "8388608");
  EXPECT_EQ(Ids(exact), "size");
  EXPECT_EQ(exact[0].level, IssueLevel::kNote);
  EXPECT_EQ(exact[0].message, "ttm.pages_limit=8388608 is 32 GiB (8388608 pages of 4 KiB)");

  auto more = m.Check("ttm.pages_limit", "8388609");
  ASSERT_EQ(Ids(more), "size-above-ram");
  EXPECT_EQ(more[0].level, IssueLevel::kRefuseUnlessForced);
  EXPECT_THAT(more[0].message, HasSubstr("more than this machine's RAM of 32 GiB (MemTotal in "));
  EXPECT_THAT(more[0].message, HasSubstr("The unit is pages of 4 KiB: 8 GiB is 2097152"));
  EXPECT_THAT(more[0].message, HasSubstr("--force"));

  EXPECT_EQ(Ids(m.Check("amdgpu.gttsize", "32768")), "size");  // 32 GiB in MiB
  EXPECT_EQ(Ids(m.Check("amdgpu.gttsize", "32769")), "size-above-ram");
  EXPECT_EQ(Ids(m.Check("ttm.dma32_pages_limit", "8388609")), "size-above-ram");
  EXPECT_EQ(Ids(m.Check("cmdline.ttm.page_pool_size", "8388609")), "size-above-ram");
}

TEST(SizeChecksTest, TheIssuesNumbersOnA32GibMachine) {
  Machine m(k32Gib);
  // "the unit is 4 KiB pages; people type GiB"
  auto huge = m.Check("ttm.pages_limit", "99999999999999");
  ASSERT_EQ(Ids(huge), "size-above-ram");
  EXPECT_THAT(huge[0].message, HasSubstr("is 363.7 PiB (99999999999999 pages of 4 KiB)"));

  // One page is a unit mistake like the size above: refused unless forced, with the unit said.
  auto one = m.Check("ttm.pages_limit", "1");
  ASSERT_EQ(Ids(one), "size-below-default");
  EXPECT_EQ(one[0].level, IssueLevel::kRefuseUnlessForced);
  EXPECT_THAT(one[0].message, HasSubstr("to 4 KiB (1 page of 4 KiB), under 1 GiB"));
  EXPECT_THAT(one[0].message, HasSubstr("8 GiB is 2097152"));
  EXPECT_THAT(one[0].hint, HasSubstr("the default (16 GiB)"));
  // 1 GiB and more, below half the RAM: a warning, as before.
  auto small = m.Check("ttm.pages_limit", "262144");
  ASSERT_EQ(Ids(small), "size-below-default");
  EXPECT_EQ(small[0].level, IssueLevel::kWarn);
  EXPECT_THAT(small[0].message, HasSubstr("to 1 GiB (262144 pages of 4 KiB), below the kernel's default of half the "
                                          "RAM: 16 GiB of 32 GiB (MemTotal in "));
  EXPECT_EQ(m.Check("ttm.pages_limit", "262143")[0].level, IssueLevel::kRefuseUnlessForced);
  EXPECT_THAT(one[0].source, HasSubstr("ttm_device.c ttm_global_init()"));
  EXPECT_EQ(Ids(m.Check("ttm.page_pool_size", "1")), "size-below-default");
  auto gtt = m.Check("amdgpu.gttsize", "1");
  ASSERT_EQ(Ids(gtt), "size-below-default");
  EXPECT_THAT(gtt[0].message, HasSubstr("amdgpu's GTT"));
  EXPECT_THAT(gtt[0].source, HasSubstr("amdgpu_ttm.c amdgpu_ttm_init()"));
  // dma32's default is min(lowmem, 2 GiB), not half the RAM: no such warning.
  EXPECT_EQ(Ids(m.Check("ttm.dma32_pages_limit", "1")), "size");
  // Exactly half the RAM is the default itself: no warning.
  EXPECT_EQ(Ids(m.Check("ttm.pages_limit", "4194304")), "size");
  EXPECT_EQ(Ids(m.Check("ttm.pages_limit", "4194303")), "size-below-default");
}

TEST(SizeChecksTest, AutoSentinelsZeroAndNegatives) {
  Machine m(k32Gib);
  EXPECT_TRUE(m.Check("ttm.pages_limit", "0").empty()) << "0: half of RAM, computed when ttm loads";
  EXPECT_TRUE(m.Check("ttm.page_pool_size", "0").empty());
  EXPECT_TRUE(m.Check("amdgpu.gttsize", "-1").empty()) << "-1: auto";
  // gttsize 0 is no sentinel: a GTT of 0 bytes.
  auto zero = m.Check("amdgpu.gttsize", "0");
  ASSERT_EQ(Ids(zero), "size-below-default");
  EXPECT_THAT(zero[0].message, HasSubstr("to 0 bytes (0 MiB)"));
  auto negative = m.Check("amdgpu.gttsize", "-2");
  ASSERT_EQ(Ids(negative), "invalid-value");
  EXPECT_EQ(negative[0].level, IssueLevel::kRefuse);
  EXPECT_THAT(negative[0].message, HasSubstr("a size cannot be negative; -1 (the default) is automatic"));
}

TEST(SizeChecksTest, NumbersThatOverflowWhenMultipliedByThePageSize) {
  Machine m(k32Gib);
  for (const char* v : {"18446744073709551615", "4503599627370496"}) {  // ULONG_MAX, 2^52 (2^52 * 4096 = 2^64)
    auto issues = m.Check("ttm.pages_limit", v);
    ASSERT_EQ(Ids(issues), "size-above-ram") << v;
    EXPECT_THAT(issues[0].message, HasSubstr("is more than 16 EiB")) << v;
  }
  EXPECT_EQ(Ids(m.Check("ttm.pages_limit", "4503599627370495")), "size-above-ram");  // fits: 16 EiB - 4 KiB
  EXPECT_THAT(m.Check("ttm.pages_limit", "4503599627370495")[0].message, Not(HasSubstr("more than 16 EiB")));
}

TEST(SizeChecksTest, GarbageIsNotASize) {
  Machine m(k32Gib);
  // ValidateValue refuses these before; CheckSize has nothing to say about a non-number.
  for (const char* v : {"abc", "", "8G", "1e9", "--1"}) EXPECT_TRUE(m.Check("ttm.pages_limit", v).empty()) << v;
}

TEST(SizeChecksTest, UnknownRamIsANoteNotARefusal) {
  for (const char* meminfo : {static_cast<const char*>(nullptr), "MemTotal: lots kB\n"}) {
    Machine m(meminfo);
    auto issues = m.Check("ttm.pages_limit", "99999999999999");
    ASSERT_EQ(Ids(issues), "cannot-check");
    EXPECT_EQ(issues[0].level, IssueLevel::kNote);
    EXPECT_THAT(issues[0].message, HasSubstr("is 363.7 PiB (99999999999999 pages of 4 KiB); it cannot be checked "
                                             "against the RAM: no usable MemTotal line in "));
    EXPECT_THAT(issues[0].message, HasSubstr("/proc/meminfo"));
    EXPECT_EQ(Ids(m.Check("ttm.pages_limit", "1")), "cannot-check");
  }
}

}  // namespace
}  // namespace rocmtune::knobs
