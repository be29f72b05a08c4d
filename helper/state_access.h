// Who may read the helper's journal and lock besides root. rocmtuned runs as its own user
// (rocmtuned.service User=rocmtune) and answers History, Describe and Verify from the journal,
// and asks the lock whether a writer runs (journal/writer_probe.h): when `root`'s etc/group has
// the daemon's group, the journal directory is 0750 and its records and the lock 0640, owner
// root, group rocmtune. Without that group they stay root's alone (records and lock 0600, the
// directory as FileWriter makes it). Only ever read access: the group gets no write bit.
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
// modes above: the journal directory, the lock (`lock_fd`) and every regular root-owned file in
// the journal directory. Metadata only, rewritten on every run that takes the lock; a failure is
// left for the next run (the records themselves are untouched).
void ShareJournal(const sys::Root& root, int lock_fd);

}  // namespace rocmtune::helper
