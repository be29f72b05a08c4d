// rocmtune's failures as typed D-Bus errors: the names and which failure gets which are the
// bus contract's (bus/contract.h), so a client tells a refusal from a conflict by the error
// name, never by parsing the message.
#pragma once

#include <systemd/sd-bus.h>

#include "bus/contract.h"
#include "util/result.h"

namespace rocmtune::daemon {

using bus::ErrorName;

// Sets `ret` from `error` and returns the negative errno sd-bus expects of a handler. The
// handler's guard (daemon/guard.h) logs it with the caller and the request.
int SetError(sd_bus_error* ret, const Error& error);

// Replies to a call answered later (held past its handler) with `error`, logged with its caller
// as every error reply is (daemon/log.h ReplyError).
int ReplyFailure(sd_bus_message* call, const Error& error);

}  // namespace rocmtune::daemon
