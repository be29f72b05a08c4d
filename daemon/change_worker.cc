#include "daemon/change_worker.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "bus/contract.h"
#include "daemon/guard.h"
#include "daemon/wakeup.h"

namespace rocmtune::daemon {

ChangeWorker::~ChangeWorker() {
  if (thread_.joinable()) thread_.join();
}

Result<void> ChangeWorker::Attach(sd_event* event) {
  return WatchWakeup(event, OnDone, this, "change worker", eventfd_, source_);
}

bool ChangeWorker::Start(std::function<JobResult()> job, std::function<void(JobResult)> done) {
  if (busy_) return false;
  if (thread_.joinable()) thread_.join();
  busy_ = true;
  done_ = std::move(done);
  thread_ = std::thread([this, job = std::move(job)] {
    JobResult result;
    try {
      result = job();
    } catch (const std::exception& e) {
      result = {bus::kErrorFailed, fmt::format("internal error: {}", e.what()), ""};
    } catch (...) {
      result = {bus::kErrorFailed, "internal error", ""};
    }
    {
      std::lock_guard lock(mutex_);
      result_ = std::move(result);
    }
    Wake(eventfd_.get());
  });
  return true;
}

int ChangeWorker::OnDone(sd_event_source*, int fd, uint32_t, void* userdata) noexcept {
  return Guard("the change worker", [&] { return static_cast<ChangeWorker*>(userdata)->Finish(fd); });
}

int ChangeWorker::Finish(int fd) {
  auto& self = *this;
  uint64_t count = 0;
  while (::read(fd, &count, sizeof(count)) < 0 && errno == EINTR) {}
  std::optional<JobResult> result;
  {
    std::lock_guard lock(self.mutex_);
    result.swap(self.result_);
  }
  if (!result) return 0;
  if (self.thread_.joinable()) self.thread_.join();
  self.busy_ = false;
  auto done = std::move(self.done_);
  self.done_ = nullptr;
  // The reply is sent (and a failure logged) by `done`; an exception from it is the guard's.
  if (done) done(std::move(*result));
  return 0;
}

}  // namespace rocmtune::daemon
