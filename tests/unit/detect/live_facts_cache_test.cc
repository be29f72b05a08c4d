// detect::LiveFactsCache (rocmtuned's Describe): rocm-smi-lib is asked again only when the kept
// facts are too old, were read for other GPUs, or were forgotten; a probe that failed is kept as
// long as one that answered.
#include "detect/live_facts_cache.h"

#include <gtest/gtest.h>

namespace rocmtune::detect {
namespace {

using namespace std::chrono_literals;
using Time = std::chrono::steady_clock::time_point;

struct Fake {
  int probes = 0;
  Time now{};
  std::string error;
  LiveFactsCache Cache(std::chrono::milliseconds max_age) {
    return LiveFactsCache(
        max_age,
        [this](const std::vector<Gpu>& gpus) {
          ++probes;
          sys::SmiProbe probe;
          probe.error = error;
          probe.version = std::to_string(probes);  // which probe the facts came from
          return MatchLiveFacts(gpus, probe);
        },
        [this] { return now; });
  }
};

std::vector<Gpu> Gpus(std::initializer_list<const char*> ids) {
  std::vector<Gpu> gpus;
  for (const char* id : ids) {
    Gpu g;
    g.id = id;
    gpus.push_back(std::move(g));
  }
  return gpus;
}

TEST(LiveFactsCacheTest, KeepsFactsForTheSameGpusUntilTheyAreTooOld) {
  Fake fake;
  LiveFactsCache cache = fake.Cache(2000ms);
  const auto gpus = Gpus({"0000:03:00.0", "0000:26:00.0"});
  EXPECT_EQ(cache.Get(gpus).size(), 2u);
  EXPECT_EQ(fake.probes, 1);
  fake.now += 1999ms;
  EXPECT_EQ(cache.Get(gpus).at(1).library_version, "1");
  EXPECT_EQ(fake.probes, 1);
  fake.now += 1ms;
  EXPECT_EQ(cache.Get(gpus).at(0).library_version, "2");
  EXPECT_EQ(fake.probes, 2);
}

TEST(LiveFactsCacheTest, OtherGpusOrForgettingReadsAgain) {
  Fake fake;
  LiveFactsCache cache = fake.Cache(2000ms);
  (void)cache.Get(Gpus({"0000:03:00.0"}));
  const std::vector<LiveFacts>& two = cache.Get(Gpus({"0000:03:00.0", "0000:26:00.0"}));
  EXPECT_EQ(fake.probes, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[1].gpu_id, "0000:26:00.0");
  (void)cache.Get(Gpus({"0000:26:00.0", "0000:03:00.0"}));  // the same GPUs in another order
  EXPECT_EQ(fake.probes, 3);
  cache.Forget();
  (void)cache.Get(Gpus({"0000:26:00.0", "0000:03:00.0"}));
  EXPECT_EQ(fake.probes, 4);
}

TEST(LiveFactsCacheTest, AFailedProbeIsKeptLikeAnAnswerAndAClockGoingBackReadsAgain) {
  Fake fake;
  fake.error = "rocm-smi-lib is not installed";
  LiveFactsCache cache = fake.Cache(2000ms);
  const auto gpus = Gpus({"0000:03:00.0"});
  EXPECT_EQ(cache.Get(gpus).at(0).unavailable, "rocm-smi-lib is not installed");
  (void)cache.Get(gpus);
  EXPECT_EQ(fake.probes, 1);
  fake.now -= 1ms;  // steady_clock never does; a clock that did must not keep facts forever
  (void)cache.Get(gpus);
  EXPECT_EQ(fake.probes, 2);
}

TEST(LiveFactsCacheTest, AZeroAgeAsksEveryTime) {
  Fake fake;
  LiveFactsCache cache = fake.Cache(0ms);
  const auto gpus = Gpus({"0000:03:00.0"});
  (void)cache.Get(gpus);
  (void)cache.Get(gpus);
  EXPECT_EQ(fake.probes, 2);
}

// rocmtuned's worker uses the two halves: Fresh never probes, Keep dates the facts at the read's
// start (a probe that took long is not kept longer for it).
TEST(LiveFactsCacheTest, FreshNeverProbesAndKeepDatesFactsAtTheReadsStart) {
  Fake fake;
  LiveFactsCache cache = fake.Cache(2000ms);
  const auto gpus = Gpus({"0000:03:00.0"});
  EXPECT_EQ(cache.Fresh(gpus), nullptr);
  const Time started = cache.Now();
  fake.now += 1500ms;  // the probe ran 1.5 s
  (void)cache.Keep(gpus, started, cache.probe()(gpus));
  ASSERT_NE(cache.Fresh(gpus), nullptr);
  EXPECT_EQ(cache.Fresh(gpus)->at(0).library_version, "1");
  EXPECT_EQ(cache.Fresh(Gpus({"0000:26:00.0"})), nullptr);
  fake.now += 500ms;
  EXPECT_EQ(cache.Fresh(gpus), nullptr);
  EXPECT_EQ(fake.probes, 1);
}

}  // namespace
}  // namespace rocmtune::detect
