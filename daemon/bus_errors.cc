#include "daemon/bus_errors.h"

#include <cerrno>
#include <string>

namespace rocmtune::daemon {

std::string_view ErrorName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "org.rocmtune1.Error.InvalidArgument";
    case ErrorCode::kNotFound: return "org.rocmtune1.Error.NotFound";
    case ErrorCode::kNotAuthorized: return SD_BUS_ERROR_ACCESS_DENIED;
    case ErrorCode::kUnsupported: return "org.rocmtune1.Error.NotSupported";
    case ErrorCode::kIo:
    case ErrorCode::kEscapesRoot:
    case ErrorCode::kInvalidData:
    case ErrorCode::kTooLarge: break;
  }
  return "org.rocmtune1.Error.Failed";
}

std::string_view ErrorName(api::ChangeStatus status) {
  switch (status) {
    case api::ChangeStatus::kOk: return "";
    case api::ChangeStatus::kRefused: return "org.rocmtune1.Error.Refused";
    case api::ChangeStatus::kDrift: return "org.rocmtune1.Error.Drift";
    case api::ChangeStatus::kNotAuthorized: return SD_BUS_ERROR_ACCESS_DENIED;
    case api::ChangeStatus::kFailed: break;
  }
  return "org.rocmtune1.Error.Failed";
}

int SetError(sd_bus_error* ret, const Error& error) {
  const std::string name(ErrorName(error.code));
  sd_bus_error_set(ret, name.c_str(), error.message.c_str());
  return -EINVAL;
}

}  // namespace rocmtune::daemon
