// Live facts for Describe without blocking the event loop. Asking rocm-smi-lib starts
// a child that may take its whole timeout (10 s: a card's mutex held, a hung sysfs read); on the
// loop that stalled every other caller. The probe runs on this worker's thread instead, its result
// comes back to the loop through an eventfd (as ChangeWorker's does), and each caller is answered
// from the loop: at once when fresh facts are kept (detect::LiveFactsCache, kLiveFactsMaxAge),
// else when the probe answers. Callers that ask while a probe runs wait for that same probe.
#pragma once

#include <systemd/sd-event.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "bus/handles.h"
#include "detect/inventory.h"
#include "detect/live_facts.h"
#include "detect/live_facts_cache.h"
#include "sys/unique_fd.h"
#include "util/result.h"

namespace rocmtune::daemon {

class LiveFactsWorker {
 public:
  using Done = std::function<void(const std::vector<detect::LiveFacts>&)>;

  LiveFactsWorker(std::chrono::milliseconds max_age, detect::LiveFactsCache::Probe probe)
      : cache_(max_age, std::move(probe)) {}
  ~LiveFactsWorker();
  LiveFactsWorker(const LiveFactsWorker&) = delete;
  LiveFactsWorker& operator=(const LiveFactsWorker&) = delete;
  LiveFactsWorker(LiveFactsWorker&&) = delete;
  LiveFactsWorker& operator=(LiveFactsWorker&&) = delete;

  Result<void> Attach(sd_event* event);
  // Calls `done` on the loop's thread with the facts for `gpus`: before returning when fresh ones
  // are kept, else when a probe for these GPUs has answered. Call it on the loop's thread only.
  void Get(const std::vector<detect::Gpu>& gpus, Done done);
  // The next Get probes again; a probe running now still answers its callers but is not kept.
  void Forget();
  // A probe is running (its callers are still to be answered).
  bool Busy() const { return running_; }

 private:
  struct Waiter {
    std::vector<detect::Gpu> gpus;
    Done done;
  };
  void Start(const std::vector<detect::Gpu>& gpus);
  // The guarded callback (daemon/guard.h) and its body: the result back on the loop.
  static int OnDone(sd_event_source* source, int fd, uint32_t revents, void* userdata) noexcept;
  int Finish(int fd);

  detect::LiveFactsCache cache_;
  sys::UniqueFd eventfd_;
  bus::EventSourcePtr source_;
  std::thread thread_;
  std::mutex mutex_;
  std::optional<std::vector<detect::LiveFacts>> result_;  // guarded by mutex_
  // The loop's thread only:
  std::vector<Waiter> waiting_;
  std::vector<detect::Gpu> probing_;
  std::chrono::steady_clock::time_point started_;
  bool running_ = false;
  bool forgotten_ = false;
};

}  // namespace rocmtune::daemon
