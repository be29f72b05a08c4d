#include "daemon/bus_errors.h"

#include <cerrno>
#include <string>

#include "daemon/log.h"

namespace rocmtune::daemon {

int SetError(sd_bus_error* ret, const Error& error) {
  const std::string name(ErrorName(error.code));
  sd_bus_error_set(ret, name.c_str(), error.message.c_str());
  return -EINVAL;
}

int ReplyFailure(sd_bus_message* call, const Error& error) {
  return ReplyError(call, ErrorName(error.code), error.message);
}

}  // namespace rocmtune::daemon
