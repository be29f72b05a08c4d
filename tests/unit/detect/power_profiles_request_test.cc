// At most one power-profiles-daemon answer per request (detect/power_profiles_request.h): the
// probe counts how often it is asked.
#include "detect/power_profiles_request.h"

#include <gtest/gtest.h>

#include "detect/other_writers.h"
#include "test_tree.h"

namespace rocmtune::detect {
namespace {

class PowerProfilesRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetPowerProfilesProbe(
        [this] {
          PowerProfilesBus bus;
          bus.running = true;
          bus.active_profile = "balanced" + std::to_string(++asked_);
          return bus;
        },
        /*any_root=*/true);
  }
  void TearDown() override { SetPowerProfilesProbe(nullptr, false); }

  std::string Ask() {
    auto bus = AskPowerProfiles(*sys::Root::Open(tree_.path()));
    return bus ? bus->active_profile : "";
  }

  rocmtune::testing::TestTree tree_;
  int asked_ = 0;
};

TEST_F(PowerProfilesRequestTest, OutsideARequestEveryCallAsks) {
  EXPECT_EQ(Ask(), "balanced1");
  EXPECT_EQ(Ask(), "balanced2");
  EXPECT_EQ(asked_, 2);
}

TEST_F(PowerProfilesRequestTest, ARequestAsksOnceAndKeepsTheAnswer) {
  {
    PowerProfilesRequest request;
    EXPECT_EQ(Ask(), "balanced1");
    EXPECT_EQ(Ask(), "balanced1");
    EXPECT_EQ(Ask(), "balanced1");
  }
  EXPECT_EQ(asked_, 1);
  // The next request asks again: nothing is kept between requests.
  PowerProfilesRequest next;
  EXPECT_EQ(Ask(), "balanced2");
  EXPECT_EQ(asked_, 2);
}

TEST_F(PowerProfilesRequestTest, ANestedScopeJoinsTheOuterRequest) {
  PowerProfilesRequest outer;
  EXPECT_EQ(Ask(), "balanced1");
  {
    PowerProfilesRequest inner;
    EXPECT_EQ(Ask(), "balanced1");
  }
  EXPECT_EQ(Ask(), "balanced1");
  EXPECT_EQ(asked_, 1);
}

}  // namespace
}  // namespace rocmtune::detect
