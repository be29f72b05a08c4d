// At most one power-profiles-daemon answer per request. Asking it is a connection and two round
// trips on the system bus (bus/power_profiles.h), and one request asks from several places (the
// writer.* findings, the service backend's Read and its planning), so rocmtuned's Describe paid
// for it more than once. Per request, not per daemon: its profile and actions change without
// anything telling rocmtuned unless it subscribed to PropertiesChanged of two bus names and to
// their owners changing (a restart, which rocmtune itself asks for), and a stale answer would
// plan the wrong regenerator; one round trip per request costs a fraction of a millisecond.
#pragma once

#include <functional>

#include "detect/other_writers.h"

namespace rocmtune::detect {

// While one lives on a thread, AskPowerProfiles on that thread asks the probe the first time
// only and returns that answer again. rocmtuned opens one around each bus or event callback
// (daemon/guard.h), rocmtunectl one around its verb. Scopes nest: the outermost one decides.
class PowerProfilesRequest {
 public:
  PowerProfilesRequest();
  ~PowerProfilesRequest();
  PowerProfilesRequest(const PowerProfilesRequest&) = delete;
  PowerProfilesRequest& operator=(const PowerProfilesRequest&) = delete;
};

// `probe`'s answer, asked once per PowerProfilesRequest (every time outside one).
PowerProfilesBus AskOncePerRequest(const std::function<PowerProfilesBus()>& probe);

}  // namespace rocmtune::detect
