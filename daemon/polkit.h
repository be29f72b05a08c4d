// Asking polkit whether a bus caller may do an action (org.freedesktop.PolicyKit1.Authority.
// CheckAuthorization; sd-bus has no public helper). Called from the change worker with its own
// bus connection, so the daemon's loop never waits for it (an interactive authorization can
// take minutes). Root is authorized without asking: polkit authorizes uid 0 anyway, and a
// machine without polkitd still works for root.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>

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

// kIo when polkit cannot be asked (no polkitd, no bus).
Result<AuthorizationAnswer> CheckAuthorization(const Caller& caller, const std::string& action,
                                               const std::map<std::string, std::string>& details);

}  // namespace rocmtune::daemon
