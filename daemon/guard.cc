#include "daemon/guard.h"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "bus/contract.h"
#include "daemon/log.h"

namespace rocmtune::daemon::guard_detail {

int Failed(std::string_view where, sd_bus_message* call, std::string_view property, sd_bus_error* ret, int r) noexcept {
  try {
    if (call == nullptr) {
      // sd-event disables a source whose callback fails: say so, it is an event dropped for good.
      LogDropped(fmt::format("the events of {}", where), fmt::format("its callback failed: {}", std::strerror(-r)));
      return r;
    }
    if (ret != nullptr && !sd_bus_error_is_set(ret)) (void)sd_bus_error_set_errno(ret, r);
    const bool set = ret != nullptr && sd_bus_error_is_set(ret);
    LogCallFailed(InfoOf(call, property), set ? ret->name : "", set && ret->message ? ret->message : std::strerror(-r));
  } catch (...) {
    // Out of memory while logging: the reply still goes out.
  }
  return r;
}

int Caught(std::string_view where, sd_bus_message* call, std::string_view property, sd_bus_error* ret,
           const char* what) noexcept {
  try {
    if (call != nullptr) {
      const CallInfo info = InfoOf(call, property);
      LogCaught(where, &info, what);
    } else {
      LogCaught(where, nullptr, what);
    }
  } catch (...) {
    // As above.
  }
  if (ret != nullptr && !sd_bus_error_is_set(ret))
    (void)sd_bus_error_setf(ret, bus::kErrorFailed, "internal error: %s", what);
  return -EIO;
}

}  // namespace rocmtune::daemon::guard_detail
