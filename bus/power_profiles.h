// power-profiles-daemon's answers on the system bus (detect/other_writers.h, PowerProfilesBus):
// the name that has an owner now (org.freedesktop.UPower.PowerProfiles from 0.20, else
// net.hadess.PowerProfiles), then one GetAll of its interface. Never starts it (the calls do not
// auto-start: a `status` must not launch a daemon) and waits at most kProbeTimeoutUsec.
#pragma once

#include <cstdint>

#include "detect/other_writers.h"

namespace rocmtune::bus {

inline constexpr uint64_t kProbeTimeoutUsec = 2'000'000;

// The system bus of DBUS_SYSTEM_BUS_ADDRESS, or the default one.
detect::PowerProfilesBus ProbePowerProfiles();

// detect::SetPowerProfilesProbe(ProbePowerProfiles, any_root).
void RegisterPowerProfilesProbe(bool any_root);

}  // namespace rocmtune::bus
