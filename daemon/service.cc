#include "daemon/service.h"

#include <systemd/sd-daemon.h>

#include <csignal>

#include <fmt/format.h>

#include "bus/handles.h"
#include "daemon/guard.h"
#include "daemon/manager.h"

namespace rocmtune::daemon {
namespace {

int Failed(std::string_view what, int r) {
  fmt::print(stderr, "rocmtuned: {}: {}\n", what, strerror(-r));
  return 1;
}

}  // namespace

int RunService(const ServiceOptions& options) {
  auto root = sys::Root::Open(options.root);
  if (!root) {
    fmt::print(stderr, "rocmtuned: {}\n", root.error().message);
    return 1;
  }
  Manager manager(std::move(*root), options.helper_socket, options.shm_is_private);

  sd_event* event_raw = nullptr;
  if (int r = sd_event_default(&event_raw); r < 0) return Failed("cannot create the event loop", r);
  bus::EventPtr event(event_raw);
  // SIGTERM and SIGINT end the loop between requests (sd-event wants them blocked first); a
  // change that is running is finished and answered first (systemd waits TimeoutStopSec).
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  bool stopping = false;
  auto on_signal = [](sd_event_source*, const struct signalfd_siginfo*, void* userdata) noexcept -> int {
    return Guard("a signal", [&] {
      *static_cast<bool*>(userdata) = true;
      return 0;
    });
  };
  for (int sig : {SIGTERM, SIGINT})
    if (int r = sd_event_add_signal(event.get(), nullptr, sig, on_signal, &stopping); r < 0)
      return Failed("cannot watch signals", r);

  // The system bus, or the one DBUS_SYSTEM_BUS_ADDRESS names (tests run a private one).
  sd_bus* bus_raw = nullptr;
  if (int r = sd_bus_open_system(&bus_raw); r < 0) return Failed("cannot connect to the system bus", r);
  bus::BusPtr bus(bus_raw);
  if (int r = sd_bus_attach_event(bus.get(), event.get(), SD_EVENT_PRIORITY_NORMAL); r < 0)
    return Failed("cannot attach the bus", r);
  if (auto attached = manager.Attach(bus.get(), event.get()); !attached)
    return Failed(attached.error().message, -attached.error().errno_value);
  if (int r = sd_bus_request_name(bus.get(), kBusName, 0); r < 0)
    return Failed(fmt::format("cannot own {}", kBusName), r);
  (void)sd_notify(0, "READY=1");
  // The fleet exports (off without /etc/rocmtune/export.toml): rewritten now, then after each
  // transaction and GPU change; rocmtune-export.timer keeps them fresh in between.
  manager.PublishExports("rocmtuned started");

  for (;;) {
    int r = sd_event_run(event.get(), options.idle_usec > 0 ? options.idle_usec : UINT64_MAX);
    if (r < 0) return Failed("event loop", r);
    if (stopping && !manager.Pending()) break;
    // Nothing happened for idle_usec and no change or probe is running (its reply is still to come).
    if (r == 0 && options.idle_usec > 0 && !manager.Pending()) break;
  }
  // Give the name back first: a request sent to it from now on starts a new instance. What was
  // already queued for this one is still answered before the connection closes.
  (void)sd_notify(0, "STOPPING=1");
  (void)sd_bus_release_name(bus.get(), kBusName);
  while (sd_bus_process(bus.get(), nullptr) > 0) {}
  return 0;
}

}  // namespace rocmtune::daemon
