#include "knobs/knob_key.h"

#include <gtest/gtest.h>

namespace rocmtune::knobs {
namespace {

TEST(KnobKeyTest, ParsesEveryForm) {
  auto k = ParseKnobKey("amdgpu.noretry");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->kind, KnobKind::kModuleParam);
  EXPECT_EQ(k->module, "amdgpu");
  EXPECT_EQ(k->name, "noretry");
  EXPECT_EQ(ParseKnobKey("ttm.pages-limit")->name, "pages_limit");  // '-' and '_' are one to the kernel
  EXPECT_EQ(ParseKnobKey("cmdline.iommu")->kind, KnobKind::kCmdline);
  EXPECT_EQ(ParseKnobKey("cmdline.amdgpu.noretry")->name, "amdgpu.noretry");
  auto s = ParseKnobKey("sysfs.0000:03:00.0.power_dpm_force_performance_level");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->target, "0000:03:00.0");
  EXPECT_EQ(s->name, "power_dpm_force_performance_level");
  EXPECT_EQ(s->Text(), "sysfs.0000:03:00.0.power_dpm_force_performance_level");
  EXPECT_EQ(ParseKnobKey("sysfs.all.pp_power_profile_mode")->target, "all");
  EXPECT_EQ(ParseKnobKey("env.HSA_OVERRIDE_GFX_VERSION")->kind, KnobKind::kEnv);
}

TEST(KnobKeyTest, RefusesEverythingElse) {
  for (const char* bad :
       {"", "noretry", ".x", "amdgpu.", "amdgpu.a.b", "nvidia.x", "amdgpu.no retry", "env.1X", "env.A-B", "sysfs.card0",
        "sysfs..x", "amdgpu.x;rm", "cmdline.a b", "env.$X", "amdgpu.\n", "sysfs.card0/../..x.y"}) {
    auto k = ParseKnobKey(bad);
    EXPECT_FALSE(k) << bad;
    if (!k) {
      EXPECT_NE(k.error().message.find("forms:"), std::string::npos) << bad;
    }
  }
}

TEST(KnobKeyTest, AssignmentSplitsAtTheFirstEquals) {
  auto a = ParseAssignment("cmdline.amdgpu.lockup_timeout=1000,2000=x");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->value, "1000,2000=x");
  EXPECT_FALSE(ParseAssignment("amdgpu.noretry"));
  EXPECT_EQ(ParseAssignment("amdgpu.noretry=")->value, "");
}

}  // namespace
}  // namespace rocmtune::knobs
