// The one guard around every callback sd-bus and sd-event call (methods, properties, replies,
// signal matches, I/O and signal sources): nothing unwinds through their C frames, and what
// goes wrong is logged once, here, at the edge (daemon/log.h). After sdbus-c++'s
// invokeHandlerAndCatchErrors.
#pragma once

#include <systemd/sd-bus.h>

#include <exception>
#include <string_view>

#include "detect/power_profiles_request.h"

namespace rocmtune::daemon {

namespace guard_detail {
// A callback returned `r` < 0: logged with the call (its caller and request) when there is one;
// `ret` (a method's error) is set from errno first when the callback left it empty, as sd-bus
// would. Returns `r`.
int Failed(std::string_view where, sd_bus_message* call, std::string_view property, sd_bus_error* ret, int r) noexcept;
// An exception escaped the callback: logged; a method answers org.rocmtune1.Error.Failed.
// Returns -EIO.
int Caught(std::string_view where, sd_bus_message* call, std::string_view property, sd_bus_error* ret,
           const char* what) noexcept;
}  // namespace guard_detail

// Runs `body` (an int-returning callback body) for the callback `where`. `call`: the method
// call being answered (nullptr for an event source), `property`: the property read, `ret`: the
// method's error (nullptr when there is none to set).
template <typename Body>
int Guard(std::string_view where, sd_bus_message* call, std::string_view property, sd_bus_error* ret,
          Body&& body) noexcept {
  try {
    // A callback is one request: power-profiles-daemon is asked at most once in it.
    const detect::PowerProfilesRequest one_ppd_answer;
    const int r = body();
    return r < 0 ? guard_detail::Failed(where, call, property, ret, r) : r;
  } catch (const std::exception& e) {
    return guard_detail::Caught(where, call, property, ret, e.what());
  } catch (...) {
    return guard_detail::Caught(where, call, property, ret, "an unknown exception");
  }
}

// The same for an event source or a reply: no call, no error to set.
template <typename Body>
int Guard(std::string_view where, Body&& body) noexcept {
  return Guard(where, nullptr, {}, nullptr, std::forward<Body>(body));
}

}  // namespace rocmtune::daemon
