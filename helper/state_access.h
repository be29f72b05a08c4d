// Who may read the helper's journal besides root. rocmtuned runs as its own user
// (rocmtuned.service User=rocmtune) and answers History, Describe and Verify from the journal:
// when `root`'s etc/group has the daemon's group, the journal directory is 0750 and its records
// 0640, owner root, group rocmtune. Without that group they stay root's alone (records 0600, the
// directory as FileWriter makes it). Only ever read access: the group gets no write bit. The
// writer's lock is root's alone either way (0600): flock(2) needs only a descriptor open for
// reading, so a group that may read it may also hold it and stall every writer; the daemon asks
// whether a writer runs through an O_PATH descriptor (journal/writer_probe.h).
#pragma once

#include <sys/types.h>

#include <optional>

#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::helper {

struct StateAccess {
  // The daemon's group, when the records are to be shared with it.
  std::optional<gid_t> group;

  mode_t FileMode() const { return group ? 0640 : 0600; }
};

// The daemon's group of `root` when this helper may give files to it (it runs as root: only root
// may chown(2) to a group it is not in); otherwise no group, and nothing changes hands.
StateAccess StateAccessFor(const sys::Root& root);

// Gives the open file or directory `fd` (made by the helper, owner root) to the daemon's group,
// when `access` has one, then sets `mode` (in that order: the group can read only once it is the
// daemon's). fchown/fchmod on the descriptor: no path is looked up again.
Result<void> SetAccess(int fd, const StateAccess& access, mode_t mode);

// Brings what earlier helpers made (a journal from before rocmtuned had its own user) to the
// modes above: the journal directory and every regular root-owned file in it. Metadata only,
// rewritten on every run that takes the lock; a failure is left for the next run (the records
// themselves are untouched).
void ShareJournal(const sys::Root& root);

}  // namespace rocmtune::helper
