// Exit codes: part of the CLI contract (rocmtunectl(1), EXIT STATUS); scripts depend on them.
#pragma once

#include "api/change.h"
#include "util/result.h"

namespace rocmtune::client {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // check-compute: not safe, or no usable GPU
inline constexpr int kExitUsage = 2;   // check-compute: also an unknown workload or device
inline constexpr int kExitRefused = 3;
inline constexpr int kExitNotAuthorized = 4;
inline constexpr int kExitDrift = 5;
inline constexpr int kExitVerifyDiffers = 6;

inline int ExitFor(api::ChangeStatus status) {
  switch (status) {
    case api::ChangeStatus::kOk: return kExitOk;
    case api::ChangeStatus::kRefused: return kExitRefused;
    case api::ChangeStatus::kDrift: return kExitDrift;
    case api::ChangeStatus::kNotAuthorized: return kExitNotAuthorized;
    case api::ChangeStatus::kFailed: break;
  }
  return kExitFailed;
}

// A request the core could not take: a name that does not exist or a malformed argument is
// the caller's mistake (2), an unknown knob a refusal (3); anything else failed (1).
inline int ExitFor(const Error& error) {
  switch (error.code) {
    case ErrorCode::kNotFound:
    case ErrorCode::kInvalidArgument: return kExitUsage;
    case ErrorCode::kUnsupported: return kExitRefused;
    case ErrorCode::kNotAuthorized: return kExitNotAuthorized;
    default: return kExitFailed;
  }
}

}  // namespace rocmtune::client
