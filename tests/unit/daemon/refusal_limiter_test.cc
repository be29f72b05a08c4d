#include "daemon/refusal_limiter.h"

#include <gtest/gtest.h>

namespace rocmtune::daemon {
namespace {

using std::chrono::seconds;
using std::chrono::steady_clock;

struct FakeClock {
  steady_clock::time_point now{};
  RefusalLimiter::Clock Get() {
    return [this] { return now; };
  }
};

TEST(RefusalLimiterTest, LogsABurstPerCallerThenCountsWhatItLeftOut) {
  FakeClock clock;
  RefusalLimiter limiter(clock.Get());
  for (int i = 0; i < RefusalLimiter::kBurst; ++i) EXPECT_EQ(limiter.Admit(1000), 0U) << i;
  for (int i = 0; i < 100; ++i) EXPECT_EQ(limiter.Admit(1000), std::nullopt) << i;
  // Another caller has a window of its own.
  EXPECT_EQ(limiter.Admit(1001), 0U);
  // Within the window: still nothing for 1000.
  clock.now += RefusalLimiter::kWindow - seconds(1);
  EXPECT_EQ(limiter.Admit(1000), std::nullopt);
  // A new window: the first entry says how many were left out (101), the next ones none.
  clock.now += seconds(1);
  EXPECT_EQ(limiter.Admit(1000), 101U);
  EXPECT_EQ(limiter.Admit(1000), 0U);
}

TEST(RefusalLimiterTest, ManyCallersDoNotGrowItWithoutBound) {
  FakeClock clock;
  RefusalLimiter limiter(clock.Get());
  for (uid_t uid = 0; uid < 3 * RefusalLimiter::kMaxCallers; ++uid) ASSERT_TRUE(limiter.Admit(uid).has_value());
  // Still deciding per caller after the table was pruned (uid 7 was forgotten: a fresh window).
  for (int i = 0; i < RefusalLimiter::kBurst; ++i) EXPECT_TRUE(limiter.Admit(7).has_value());
  EXPECT_EQ(limiter.Admit(7), std::nullopt);
}

}  // namespace
}  // namespace rocmtune::daemon
