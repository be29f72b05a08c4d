// The live facts a long-running process (rocmtuned) keeps for a short while. Asking rocm-smi-lib
// starts a child that loads the library and reads every device (tens of milliseconds, more on
// real hardware: BENCHMARKS.md "Live facts"); a status poller would pay that on every call.
// Facts are kept for `max_age` and for the same GPUs only; errors are kept as long as values.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "detect/inventory.h"
#include "detect/live_facts.h"

namespace rocmtune::detect {

class LiveFactsCache {
 public:
  using Probe = std::function<std::vector<LiveFacts>(const std::vector<Gpu>&)>;
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  explicit LiveFactsCache(std::chrono::milliseconds max_age, Probe probe = DefaultProbe(),
                          Clock clock = std::chrono::steady_clock::now)
      : max_age_(max_age), probe_(std::move(probe)), clock_(std::move(clock)) {}

  // The facts for `gpus`: the kept ones when they are younger than max_age and were read for
  // the same GPU ids, else read now (and kept).
  const std::vector<LiveFacts>& Get(const std::vector<Gpu>& gpus);
  // Get's two halves for a caller that must not wait for the probe (rocmtuned's event loop runs
  // it on a thread): the kept facts when Get would return them without reading, else nullptr;
  // and Keep, the facts a read started at `read` (a Now()) gave for `gpus`.
  const std::vector<LiveFacts>* Fresh(const std::vector<Gpu>& gpus) const;
  const std::vector<LiveFacts>& Keep(const std::vector<Gpu>& gpus, std::chrono::steady_clock::time_point read,
                                     std::vector<LiveFacts> facts);
  std::chrono::steady_clock::time_point Now() const { return clock_(); }
  const Probe& probe() const { return probe_; }
  // The next Get reads again (the GPUs changed, a change was committed).
  void Forget() { kept_.reset(); }

  static Probe DefaultProbe();

 private:
  struct Kept {
    std::vector<std::string> ids;
    std::chrono::steady_clock::time_point read;
    std::vector<LiveFacts> facts;
  };
  std::chrono::milliseconds max_age_;
  Probe probe_;
  Clock clock_;
  std::optional<Kept> kept_;
};

}  // namespace rocmtune::detect
