// GPUs come and go (hot-plug, a driver reload, a reset that rebinds): the daemon learns it from
// udev's monitor on the drm subsystem, the same events that start rocmtune-apply@.service,
// instead of asking sysfs on every request.
#pragma once

#include <libudev.h>
#include <systemd/sd-event.h>

#include <functional>
#include <string>

#include "util/handle.h"
#include "util/result.h"

namespace rocmtune::daemon {

class GpuWatch {
 public:
  // ACTION ("add", "remove", "change", "bind", ...) and the device's sysname ("card0", "renderD128").
  using OnEvent = std::function<void(const std::string& action, const std::string& sysname)>;

  GpuWatch() = default;
  ~GpuWatch() = default;
  GpuWatch(const GpuWatch&) = delete;
  GpuWatch& operator=(const GpuWatch&) = delete;

  // Listens to udev's (not the kernel's) events for the drm subsystem: udev has finished with
  // a device (rules, permissions) before the daemon looks at it.
  Result<void> Start(sd_event* event, OnEvent on_event);

 private:
  // The guarded callback (daemon/guard.h) and its body: every queued event.
  static int OnReadable(sd_event_source* source, int fd, uint32_t revents, void* userdata) noexcept;
  int Drain();

  // Declared in this order so the event source goes first, then the monitor, then the context.
  Handle<struct udev*, udev_unref> udev_;
  Handle<struct udev_monitor*, udev_monitor_unref> monitor_;
  Handle<sd_event_source*, sd_event_source_unref> source_;
  OnEvent on_event_;
};

}  // namespace rocmtune::daemon
