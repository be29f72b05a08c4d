#include "daemon/live_facts_worker.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "daemon/guard.h"
#include "daemon/log.h"
#include "daemon/wakeup.h"

namespace rocmtune::daemon {
namespace {

bool SameGpus(const std::vector<detect::Gpu>& a, const std::vector<detect::Gpu>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const detect::Gpu& x, const detect::Gpu& y) { return x.id == y.id; });
}

// A caller's reply failed to go out: its call times out; the others are still answered.
void Answer(const LiveFactsWorker::Done& done, const std::vector<detect::LiveFacts>& facts) noexcept {
  (void)Guard("a live facts reply", [&] {
    done(facts);
    return 0;
  });
}

}  // namespace

LiveFactsWorker::~LiveFactsWorker() {
  if (thread_.joinable()) thread_.join();
}

Result<void> LiveFactsWorker::Attach(sd_event* event) {
  return WatchWakeup(event, OnDone, this, "live facts worker", eventfd_, source_);
}

void LiveFactsWorker::Get(const std::vector<detect::Gpu>& gpus, Done done) {
  if (const std::vector<detect::LiveFacts>* fresh = cache_.Fresh(gpus)) {
    Answer(done, *fresh);
    return;
  }
  waiting_.push_back({gpus, std::move(done)});
  if (!running_) Start(gpus);
}

void LiveFactsWorker::Forget() {
  cache_.Forget();
  forgotten_ = running_;
}

void LiveFactsWorker::Start(const std::vector<detect::Gpu>& gpus) {
  if (thread_.joinable()) thread_.join();
  running_ = true;
  forgotten_ = false;
  probing_ = gpus;
  started_ = cache_.Now();
  thread_ = std::thread([this, gpus, probe = cache_.probe()] {
    std::vector<detect::LiveFacts> facts;
    try {
      facts = probe(gpus);
    } catch (const std::exception& e) {
      LogCaught("the live facts probe", nullptr, e.what());
      facts = detect::MatchLiveFacts(gpus, {fmt::format("internal error: {}", e.what()), "", "", "", {}});
    } catch (...) {
      LogCaught("the live facts probe", nullptr, "an unknown exception");
      facts = detect::MatchLiveFacts(gpus, {"internal error", "", "", "", {}});
    }
    {
      std::lock_guard lock(mutex_);
      result_ = std::move(facts);
    }
    Wake(eventfd_.get());
  });
}

int LiveFactsWorker::OnDone(sd_event_source*, int fd, uint32_t, void* userdata) noexcept {
  return Guard("the live facts worker", [&] { return static_cast<LiveFactsWorker*>(userdata)->Finish(fd); });
}

int LiveFactsWorker::Finish(int fd) {
  auto& self = *this;
  uint64_t count = 0;
  while (::read(fd, &count, sizeof(count)) < 0 && errno == EINTR) {}
  std::optional<std::vector<detect::LiveFacts>> result;
  {
    std::lock_guard lock(self.mutex_);
    result.swap(self.result_);
  }
  if (!result) return 0;
  if (self.thread_.joinable()) self.thread_.join();
  self.running_ = false;
  // Kept as LiveFactsCache::Get keeps them: read at the probe's start.
  if (!self.forgotten_) self.cache_.Keep(self.probing_, self.started_, *result);
  // Everyone who asked for these GPUs gets this probe's answer, however long it took; callers
  // for other GPUs (the inventory changed meanwhile) wait for the next probe.
  std::vector<Waiter> answered, later;
  for (Waiter& w : self.waiting_) (SameGpus(w.gpus, self.probing_) ? answered : later).push_back(std::move(w));
  self.waiting_ = std::move(later);
  if (!self.waiting_.empty()) self.Start(self.waiting_.front().gpus);
  for (const Waiter& w : answered) Answer(w.done, *result);
  return 0;
}

}  // namespace rocmtune::daemon
