// Asking polkit whether a bus caller may do an action (org.freedesktop.PolicyKit1.Authority.
// CheckAuthorization; sd-bus has no public helper): the call and the reading of its answer. The
// daemon sends it asynchronously (daemon/authorizer.h), so its loop never waits for polkit (an
// interactive authorization can take minutes).
#pragma once

#include <sys/types.h>
#include <systemd/sd-bus.h>

#include <map>
#include <string>

#include "bus/handles.h"
#include "util/result.h"

namespace rocmtune::daemon {

struct Caller {
  std::string sender;  // the unique bus name (":1.42")
  uid_t uid = static_cast<uid_t>(-1);
  bool interactive = false;  // the call allowed interactive authorization
};

struct AuthorizationAnswer {
  bool authorized = false;
  bool challenge = false;  // polkit would ask for a password; the call did not allow asking
  std::string why;         // when not authorized
};

// The CheckAuthorization call for `caller` (a system-bus-name subject) with `details` (shown to
// polkit's rules as action.lookup(KEY) and in the agent's message as $(KEY)); `cancellation_id`
// lets CancelCheckAuthorization end it.
Result<bus::MessagePtr> NewCheckAuthorization(sd_bus* bus, const Caller& caller, const std::string& action,
                                              const std::map<std::string, std::string>& details,
                                              const std::string& cancellation_id);
// polkit's reply (an error reply gives kIo naming it).
Result<AuthorizationAnswer> ReadAuthorization(sd_bus_message* reply, const Caller& caller, const std::string& action);

}  // namespace rocmtune::daemon
