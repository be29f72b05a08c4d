// Who a fault record's process is and what environment it ran with, where rocmtune can know it
// and never guessed:
//   - a process of this boot that still runs as the same program (/proc/PID/comm is the name the
//     kernel logged: the pid was not reused): its owner (/proc/PID/status Uid, the real uid) and
//     its environment (/proc/PID/environ, the ROCm variables only; unreadable for another user's
//     process, which then has none);
//   - a service's entry (the runtime's lines carry _SYSTEMD_UNIT and _UID): the unit's configured
//     environment (program::UnitContext, the code `check-compute --unit` uses) and the entry's uid;
// the user's name from the root's /etc/passwd.
#pragma once

#include <vector>

#include "faults/fault.h"
#include "sys/root.h"

namespace rocmtune::faults {

// `boot_id`: this boot's id (proc/sys/kernel/random/boot_id; empty when unknown): a record of
// another boot names a process that is gone, whatever runs under its pid now.
void AddProcessFacts(const sys::Root& root, std::string_view boot_id, std::vector<FaultRecord>& records);

// This boot's id as the root's /proc says it, lower-case hex without dashes (the journal's
// _BOOT_ID form); empty when unreadable.
std::string ThisBootId(const sys::Root& root);

}  // namespace rocmtune::faults
