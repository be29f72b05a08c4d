// One writer at a time: an exclusive flock(2) on var/lib/rocmtune/lock of the root, held for
// the helper's whole run (recovery included). A second writer waits; the kernel drops the lock
// when the holder dies, so a crash never leaves the system locked.
#pragma once

#include "helper/step_hook.h"
#include "sys/root.h"
#include "sys/unique_fd.h"

namespace rocmtune::helper {

class WriterLock {
 public:
  // `wait`: block until the lock is free; otherwise fail at once (kUnsupported: busy).
  static Result<WriterLock> Acquire(const sys::Root& root, StepHook& hook, bool wait);

 private:
  explicit WriterLock(sys::UniqueFd fd) : fd_(std::move(fd)) {}
  sys::UniqueFd fd_;
};

}  // namespace rocmtune::helper
