// rocmtuned's GPU faults (api/faults.h): the Faults method and the FaultsSeen signal.
//
// What a caller may see: rocmtuned runs as user rocmtune and reads the log with that user's
// rights, which are not the caller's. So a caller that is not root and not an admin (a member of
// sudo, wheel, adm or systemd-journal: who may read the whole journal anyway) gets only the
// records of its own processes (the service entry's _UID, the running process's owner); a fault
// whose user is unknown is shown to admins only. FaultsSeen carries a count, nothing of a record.
//
// Read on demand, never watched (the daemon keeps its idle exit): at start, on Describe and on
// Faults the daemon reads the log after its saved cursor and emits FaultsSeen(n) when this boot
// has n new fault records since (at start: every fault of this boot, as the daemon has seen none).
#pragma once

#include <systemd/sd-bus.h>

#include "daemon/manager.h"

namespace rocmtune::daemon {

// Faults(i boot, t since_usec) -> s: rocmtune.faults.v1, filtered for the caller as above.
// `boot` 0 this boot, -1 the one before (journalctl -b), 1 every boot the log holds; `since_usec`
// 0 for no limit.
int FaultsMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret);

}  // namespace rocmtune::daemon
