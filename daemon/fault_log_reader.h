// How rocmtuned reads the system log for Faults and FaultsSeen (api::LogReader). It runs as user
// rocmtune, not in group systemd-journal or adm (systemd/rocmtuned.service): the journal
// (root:systemd-journal 0640) is closed to it. The rule:
//   - as root, or without a helper socket: sys::ReadSystemLog itself;
//   - on the live root: rocmtune-helper's `read-log` (root reads the journal's GPU lines for it,
//     helper/README.md), and its own read only when the helper cannot be asked;
//   - on another root (a world in tests): its own read, and the helper's when its own skipped a
//     journal file it may not read (files_not_permitted).
// The helper returns every record; the caller filter (api::KeepCallersFaults) stays the daemon's.
// The helper is asked at most 10 times in 5 s (then Busy), and the same query within 2 s is
// answered from its last reply: any user may call Describe and Faults, each ask starts a root
// helper, and the changes share the socket's trigger limit.
#pragma once

#include <string>

#include "api/faults.h"

namespace rocmtune::daemon {

api::LogReader DaemonLogReader(std::string helper_socket);

}  // namespace rocmtune::daemon
