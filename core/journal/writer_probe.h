// Is a rocmtune-helper writing this root right now? A transaction with a begin record and no end
// is either being written (a helper holds the root's lock) or was interrupted (no one does): a
// reader must not tell an admin to roll back a change that is still running.
#pragma once

#include <vector>

#include "journal/journal.h"
#include "sys/root.h"

namespace rocmtune::journal {

// True when some process holds the writer's lock (kLockFile, flock) of `root`. It looks in
// /proc/locks rather than trying the lock: a reader's probe must never make a helper's
// non-blocking lock fail. False when the lock file or /proc/locks cannot be read.
bool WriterRunning(const sys::Root& root);

// Whether the last of `txns` (as read from `root`'s journal a moment ago) is incomplete only
// because a helper is writing it: a writer holds the lock now, or the journal read again shows
// that transaction ended since (it finished between the read and the probe).
bool LastIsRunning(const sys::Root& root, const std::vector<Transaction>& txns);

}  // namespace rocmtune::journal
