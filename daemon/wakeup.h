// The eventfd a worker thread (ChangeWorker, DoctorWorker, LiveFactsWorker) wakes the event loop
// with: its result is taken and answered on the loop, which alone touches the bus.
#pragma once

#include <systemd/sd-event.h>

#include <string_view>

#include "bus/handles.h"
#include "sys/unique_fd.h"
#include "util/result.h"

namespace rocmtune::daemon {

// Makes `fd` a new non-blocking eventfd and watches it on `event` with `handler(userdata)`;
// `what` names the worker in the error ("cannot watch the change worker").
Result<void> WatchWakeup(sd_event* event, sd_event_io_handler_t handler, void* userdata, std::string_view what,
                         sys::UniqueFd& fd, bus::EventSourcePtr& source);
// From the worker's thread: the loop's handler runs.
void Wake(int fd);

}  // namespace rocmtune::daemon
