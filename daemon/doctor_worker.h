// Doctor's work off the event loop. Matching a crash log of megabytes against the knowledge base
// takes a second or more; on the loop that held every other caller (round-3 review: twelve
// 16 MiB Doctor calls from one user kept rocmtuned busy and its bus queue full, and root's Set got
// LimitsExceeded). Requests queue for one worker thread: each uid has at most kMaxPerUid request
// queued or running and at most kMaxQueued wait in all (more are Busy at once), so what one user
// can make the daemon hold is bounded; the answer comes back through an eventfd and is sent from
// the loop, which alone touches the bus.
#pragma once

#include <sys/types.h>
#include <systemd/sd-event.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "bus/handles.h"
#include "daemon/change_worker.h"
#include "sys/unique_fd.h"
#include "util/result.h"

namespace rocmtune::daemon {

class DoctorWorker {
 public:
  static constexpr size_t kMaxPerUid = 1;
  static constexpr size_t kMaxQueued = 8;

  DoctorWorker() = default;
  ~DoctorWorker();
  DoctorWorker(const DoctorWorker&) = delete;
  DoctorWorker& operator=(const DoctorWorker&) = delete;
  DoctorWorker(DoctorWorker&&) = delete;
  DoctorWorker& operator=(DoctorWorker&&) = delete;

  Result<void> Attach(sd_event* event);
  // Queues `job` for `uid`; `done` runs on the loop with its result. kBusy (nothing queued) when
  // that uid has kMaxPerUid requests queued or running, or kMaxQueued wait in all.
  Result<void> Submit(uid_t uid, std::function<JobResult()> job, std::function<void(JobResult)> done);
  // Something is queued or running (the idle exit waits for it).
  bool Busy() const { return !owners_.empty(); }

 private:
  struct Job {
    uint64_t id = 0;
    std::function<JobResult()> run;
  };
  void Run();
  static int OnDone(sd_event_source* source, int fd, uint32_t revents, void* userdata) noexcept;
  int Finish(int fd);

  sys::UniqueFd eventfd_;
  bus::EventSourcePtr source_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;                               // guarded by mutex_
  std::deque<std::pair<uint64_t, JobResult>> results_;  // guarded by mutex_
  bool stopping_ = false;                               // guarded by mutex_
  // The loop's thread only:
  struct Owner {
    uid_t uid;
    std::function<void(JobResult)> done;
  };
  std::map<uint64_t, Owner> owners_;
  uint64_t next_id_ = 0;
};

}  // namespace rocmtune::daemon
