#include "daemon/gpu_watch.h"

#include <libudev.h>

#include <cerrno>

#include <fmt/format.h>

#include "daemon/guard.h"

namespace rocmtune::daemon {

Result<void> GpuWatch::Start(sd_event* event, OnEvent on_event) {
  on_event_ = std::move(on_event);
  udev_.Reset(udev_new());
  if (!udev_) return Fail(ErrorCode::kIo, "cannot create a udev context", errno);
  monitor_.Reset(udev_monitor_new_from_netlink(udev_.get(), "udev"));
  if (!monitor_) return Fail(ErrorCode::kIo, "cannot open udev's monitor (netlink)", errno);
  if (int r = udev_monitor_filter_add_match_subsystem_devtype(monitor_.get(), "drm", nullptr); r < 0)
    return Fail(ErrorCode::kIo, "cannot filter udev's monitor on drm", -r);
  if (int r = udev_monitor_enable_receiving(monitor_.get()); r < 0)
    return Fail(ErrorCode::kIo, "cannot listen to udev's monitor", -r);
  sd_event_source* source = nullptr;
  int r = sd_event_add_io(event, &source, udev_monitor_get_fd(monitor_.get()), EPOLLIN, &GpuWatch::OnReadable, this);
  if (r < 0) return Fail(ErrorCode::kIo, "cannot watch udev's monitor", -r);
  source_.Reset(source);
  return {};
}

int GpuWatch::OnReadable(sd_event_source*, int, uint32_t, void* userdata) noexcept {
  return Guard("udev's monitor", [&] { return static_cast<GpuWatch*>(userdata)->Drain(); });
}

int GpuWatch::Drain() {
  auto& self = *this;
  // One readable wake-up may carry several events; each receive takes one (the socket is
  // non-blocking: NULL when drained).
  using DevicePtr = Handle<struct udev_device*, udev_device_unref>;
  while (DevicePtr device{udev_monitor_receive_device(self.monitor_.get())}) {
    const char* action = udev_device_get_action(device.get());
    const char* sysname = udev_device_get_sysname(device.get());
    std::string action_text = action ? action : "";
    std::string name = sysname ? sysname : "";
    // A failed refresh keeps the old inventory; the next event or request tries again.
    (void)Guard(fmt::format("the udev event {} {}", action_text, name), [&] {
      self.on_event_(action_text, name);
      return 0;
    });
  }
  return 0;
}

}  // namespace rocmtune::daemon
