#include "daemon/doctor_worker.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "bus/contract.h"
#include "daemon/guard.h"
#include "daemon/wakeup.h"

namespace rocmtune::daemon {

DoctorWorker::~DoctorWorker() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Result<void> DoctorWorker::Attach(sd_event* event) {
  return WatchWakeup(event, OnDone, this, "doctor worker", eventfd_, source_);
}

Result<void> DoctorWorker::Submit(uid_t uid, std::function<JobResult()> job, std::function<void(JobResult)> done) {
  const auto mine = static_cast<size_t>(
      std::count_if(owners_.begin(), owners_.end(), [uid](const auto& o) { return o.second.uid == uid; }));
  if (mine >= kMaxPerUid)
    return Fail(ErrorCode::kBusy,
                fmt::format("a Doctor request of uid {} is still being answered; ask again when it is done", uid));
  if (owners_.size() >= kMaxQueued)
    return Fail(ErrorCode::kBusy, fmt::format("{} Doctor requests wait already; ask again", owners_.size()));
  const uint64_t id = ++next_id_;
  owners_.emplace(id, Owner{uid, std::move(done)});
  {
    std::lock_guard lock(mutex_);
    queue_.push_back({id, std::move(job)});
  }
  if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
  wake_.notify_one();
  return {};
}

void DoctorWorker::Run() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    JobResult result;
    try {
      result = job.run();
    } catch (const std::exception& e) {
      result = {bus::kErrorFailed, fmt::format("internal error: {}", e.what()), ""};
    } catch (...) {
      result = {bus::kErrorFailed, "internal error", ""};
    }
    job.run = nullptr;  // what the job held (the log) goes now, not with the next job
    {
      std::lock_guard lock(mutex_);
      results_.emplace_back(job.id, std::move(result));
    }
    Wake(eventfd_.get());
  }
}

int DoctorWorker::OnDone(sd_event_source*, int fd, uint32_t, void* userdata) noexcept {
  return Guard("the doctor worker", [&] { return static_cast<DoctorWorker*>(userdata)->Finish(fd); });
}

int DoctorWorker::Finish(int fd) {
  uint64_t count = 0;
  while (::read(fd, &count, sizeof(count)) < 0 && errno == EINTR) {}
  std::deque<std::pair<uint64_t, JobResult>> results;
  {
    std::lock_guard lock(mutex_);
    results.swap(results_);
  }
  for (auto& entry : results) {  // not a structured binding: a lambda below uses the result
    JobResult& result = entry.second;
    auto it = owners_.find(entry.first);
    if (it == owners_.end()) continue;
    auto done = std::move(it->second.done);
    owners_.erase(it);
    // Sends the reply; an exception is caught here, so the results after it are answered too.
    if (done)
      (void)Guard("the doctor reply", [&] {
        done(std::move(result));
        return 0;
      });
  }
  return 0;
}

}  // namespace rocmtune::daemon
