// Exit codes: part of the CLI contract (rocmtunectl(1), EXIT STATUS); scripts depend on them.
// Declared with the bus contract (bus/contract.h) so that a refusal exits 3 whether the core ran
// here or in rocmtuned, by the same table.
#pragma once

#include "api/change.h"
#include "bus/contract.h"
#include "util/result.h"

namespace rocmtune::client {

using bus::kExitDrift;
using bus::kExitFailed;
using bus::kExitNotAuthorized;
using bus::kExitOk;
using bus::kExitRefused;
using bus::kExitUsage;
using bus::kExitVerifyDiffers;

// A change that did not go through exits as its bus error does (Refused 3, Drift 5,
// AccessDenied 4, Failed 1).
inline int ExitFor(api::ChangeStatus status) {
  if (status == api::ChangeStatus::kOk) return kExitOk;
  return bus::ExitFor(bus::ErrorName(status));
}

// A request the core could not take, as the daemon would name it: a name that does not exist or
// a malformed argument is the caller's mistake (2), an unknown knob a refusal (3); anything else
// failed (1).
inline int ExitFor(const Error& error) { return bus::ExitFor(bus::ErrorName(error.code)); }

}  // namespace rocmtune::client
