// The object /org/rocmtune1 with the interface org.rocmtune1.Manager, as
// dbus/org.rocmtune1.Manager.xml declares it (a test compares that file with Introspect).
// Every method is one call into core/api; reads need no authorization.
#pragma once

#include <systemd/sd-bus.h>

#include "daemon/sd_handles.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::daemon {

inline constexpr const char* kBusName = "org.rocmtune1";
inline constexpr const char* kObjectPath = "/org/rocmtune1";
inline constexpr const char* kInterface = "org.rocmtune1.Manager";

class Manager {
 public:
  // `root`: the tree served ("/" in production, a world in tests).
  explicit Manager(sys::Root root) : root_(std::move(root)) {}
  ~Manager() = default;
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;
  Manager(Manager&&) = delete;
  Manager& operator=(Manager&&) = delete;

  // Adds the object to `bus` (the vtable lives as long as this Manager).
  Result<void> Attach(sd_bus* bus);

  const sys::Root& root() const { return root_; }

 private:
  sys::Root root_;
  SlotPtr slot_;
};

}  // namespace rocmtune::daemon
