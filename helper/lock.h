// One writer at a time: an exclusive flock(2) on var/lib/rocmtune/lock of the root, held for
// the helper's whole run (recovery included). A second writer waits, boundedly; the kernel drops
// the lock when the holder dies, so a crash never leaves the system locked.
#pragma once

#include <chrono>

#include "helper/step_hook.h"
#include "sys/root.h"
#include "sys/unique_fd.h"

namespace rocmtune::helper {

class WriterLock {
 public:
  // How long a writer that waits waits at most (a GRUB or initramfs regeneration under the lock
  // takes a minute or two on a slow disk).
  static constexpr std::chrono::seconds kMaxWait{300};

  // `wait`: wait until the lock is free, at most kMaxWait; otherwise fail at once (kUnsupported:
  // busy, naming the holders). As root, a lock held only by processes that are not root is
  // replaced by a new lock file rather than waited for: every rocmtune writer runs as root, so
  // such a holder can only mean to stall them. The lock file is root's, 0600.
  static Result<WriterLock> Acquire(const sys::Root& root, StepHook& hook, bool wait);

 private:
  explicit WriterLock(sys::UniqueFd fd) : fd_(std::move(fd)) {}
  sys::UniqueFd fd_;
};

}  // namespace rocmtune::helper
