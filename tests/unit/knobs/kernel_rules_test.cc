// The kernel-version rules of knobs/kernel_rules.h that have no world of their own.
#include "knobs/kernel_rules.h"

#include <gtest/gtest.h>

namespace rocmtune::knobs {
namespace {

// amdgpu_device_get_job_timeout_settings() on bare metal: 60 s for compute until 6.16, 10 s for
// every queue in 6.17 (ec8fbb44b51e), 2 s for every queue from 6.19 (1bea57ea7544), where one
// value also sets them all; older kernels are not verified.
TEST(KernelRulesTest, LockupTimeoutDefaultsByKernel) {
  EXPECT_FALSE(LockupTimeoutDefaults(std::nullopt));
  EXPECT_FALSE(LockupTimeoutDefaults(KernelMinor{6, 10}));
  auto k611 = LockupTimeoutDefaults(KernelMinor{6, 11});
  ASSERT_TRUE(k611);
  EXPECT_EQ(k611->gfx, 10000);
  EXPECT_EQ(k611->compute, 60000);
  EXPECT_FALSE(k611->single_sets_all);
  auto k616 = LockupTimeoutDefaults(KernelMinor{6, 16});
  ASSERT_TRUE(k616);
  EXPECT_EQ(k616->compute, 60000);
  auto k617 = LockupTimeoutDefaults(KernelMinor{6, 17});
  ASSERT_TRUE(k617);
  EXPECT_EQ(k617->compute, 10000);
  EXPECT_EQ(k617->sdma, 10000);
  EXPECT_FALSE(k617->single_sets_all);
  auto k618 = LockupTimeoutDefaults(KernelMinor{6, 18});
  ASSERT_TRUE(k618);
  EXPECT_EQ(k618->gfx, 10000);
  for (KernelMinor k : {KernelMinor{6, 19}, KernelMinor{7, 0}, KernelMinor{7, 1}}) {
    auto d = LockupTimeoutDefaults(k);
    ASSERT_TRUE(d) << k.first << "." << k.second;
    EXPECT_EQ(d->gfx, 2000);
    EXPECT_EQ(d->compute, 2000);
    EXPECT_EQ(d->sdma, 2000);
    EXPECT_EQ(d->video, 2000);
    EXPECT_TRUE(d->single_sets_all);
  }
}

}  // namespace
}  // namespace rocmtune::knobs
