// rocmtune's failures as typed D-Bus errors (dbus/org.rocmtune1.Manager.xml lists them): a
// client tells a refusal from a conflict by the error name, never by parsing the message.
#pragma once

#include <systemd/sd-bus.h>

#include <string_view>

#include "api/change.h"
#include "util/result.h"

namespace rocmtune::daemon {

inline constexpr std::string_view kErrorPrefix = "org.rocmtune1.Error.";

// org.rocmtune1.Error.InvalidArgument, .NotFound, .Failed; kNotAuthorized is the bus's own
// org.freedesktop.DBus.Error.AccessDenied.
std::string_view ErrorName(ErrorCode code);
// A change that did not go through: .Refused, .Drift, .AccessDenied, .Failed; empty for kOk.
std::string_view ErrorName(api::ChangeStatus status);

// Sets `ret` from `error` and returns the negative errno sd-bus expects of a handler.
int SetError(sd_bus_error* ret, const Error& error);

}  // namespace rocmtune::daemon
