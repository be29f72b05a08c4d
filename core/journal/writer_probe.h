// Is a rocmtune-helper writing this root right now? A transaction with a begin record and no end
// is either being written (a helper holds the root's lock) or was interrupted (no one does): a
// reader must not tell an admin to roll back a change that is still running.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "journal/journal.h"
#include "sys/root.h"

namespace rocmtune::journal {

// True when some process holds the writer's lock (kLockFile, flock) of `root`. It looks in
// /proc/locks rather than trying the lock: a reader's probe must never make a helper's
// non-blocking lock fail. The lock file is root's alone (0600): the probe identifies it through
// an O_PATH descriptor, which needs no read access. False when the lock file or /proc/locks
// cannot be looked at.
bool WriterRunning(const sys::Root& root);

// A process /proc/locks names as holding a flock(2) (not waiting for one).
struct LockHolder {
  pid_t pid = 0;
  std::optional<uid_t> uid;  // its effective uid, when /proc/PID/status could be read
  std::string command;       // /proc/PID/comm, when it could be read
};
// The holders of flocks on the file (`dev`, `ino`), from this machine's /proc/locks (proc(5))
// and /proc/PID.
std::vector<LockHolder> LockHolders(dev_t dev, ino_t ino);
// "pid 4711 (rocmtune-helper, uid 0)", joined with ", ".
std::string DescribeHolders(const std::vector<LockHolder>& holders);

// Whether the last of `txns` (as read from `root`'s journal a moment ago) is incomplete only
// because a helper is writing it: a writer holds the lock now, or the journal read again shows
// that transaction ended since (it finished between the read and the probe).
bool LastIsRunning(const sys::Root& root, const std::vector<Transaction>& txns);

}  // namespace rocmtune::journal
