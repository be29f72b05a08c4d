// One change at a time, off the event loop. A change can take minutes (polkit waiting for a
// password, update-initramfs), so it runs on this worker thread while the loop keeps answering
// reads; its result comes back to the loop through an eventfd, and only the loop touches the bus.
// A second change while one runs is refused with org.rocmtune1.Error.Busy by the caller.
#pragma once

#include <systemd/sd-event.h>

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "bus/handles.h"
#include "sys/unique_fd.h"
#include "util/result.h"

namespace rocmtune::daemon {

struct JobResult {
  std::string error_name;   // empty: the call succeeded
  std::string text;         // the reply: a JSON document, or the error's message
  std::string transaction;  // committed transaction id, if any
};

class ChangeWorker {
 public:
  ChangeWorker() = default;
  ~ChangeWorker();
  ChangeWorker(const ChangeWorker&) = delete;
  ChangeWorker& operator=(const ChangeWorker&) = delete;
  ChangeWorker(ChangeWorker&&) = delete;
  ChangeWorker& operator=(ChangeWorker&&) = delete;

  Result<void> Attach(sd_event* event);
  bool Busy() const { return busy_; }
  // Runs `job` on the worker thread and `done` on the event loop with its result; false (and
  // nothing run) when a change is already running.
  bool Start(std::function<JobResult()> job, std::function<void(JobResult)> done);

 private:
  // The guarded callback (daemon/guard.h) and its body: the result back on the loop.
  static int OnDone(sd_event_source* source, int fd, uint32_t revents, void* userdata) noexcept;
  int Finish(int fd);

  sys::UniqueFd eventfd_;
  bus::EventSourcePtr source_;
  std::thread thread_;
  std::mutex mutex_;
  std::optional<JobResult> result_;  // guarded by mutex_
  std::function<void(JobResult)> done_;
  bool busy_ = false;  // the loop's thread only
};

}  // namespace rocmtune::daemon
