// RAII for the sd-bus / sd-event handles rocmtuned and rocmtunectl hold (CONTRIBUTING.md: every C handle has an owner).
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include <string>
#include <vector>

#include "util/handle.h"

namespace rocmtune::bus {

// A bus is flushed before it is closed: replies queued by the last handler still go out.
using BusPtr = Handle<sd_bus*, sd_bus_flush_close_unref>;
using EventPtr = Handle<sd_event*, sd_event_unref>;
using MessagePtr = Handle<sd_bus_message*, sd_bus_message_unref>;
using SlotPtr = Handle<sd_bus_slot*, sd_bus_slot_unref>;
using CredsPtr = Handle<sd_bus_creds*, sd_bus_creds_unref>;
// An event source is disabled as it is let go: its callback cannot run once its owner is gone.
using EventSourcePtr = Handle<sd_event_source*, sd_event_source_disable_unref>;

// A NULL-terminated array of the strings, as sd_bus_message_append_strv takes them; valid while
// `v` is (sd-bus copies them into the message).
inline std::vector<const char*> Strv(const std::vector<std::string>& v) {
  std::vector<const char*> out;
  out.reserve(v.size() + 1);
  for (const std::string& s : v) out.push_back(s.c_str());
  out.push_back(nullptr);
  return out;
}

// An sd_bus_error that frees what it holds. Not a Handle: the error is a struct the caller owns by
// value (sd_bus_error_free(&error)), not a pointer or a descriptor sd-bus hands out.
class BusError {
 public:
  BusError() = default;
  ~BusError() { sd_bus_error_free(&error_); }
  BusError(const BusError&) = delete;
  BusError& operator=(const BusError&) = delete;
  sd_bus_error* get() { return &error_; }
  const char* name() const { return error_.name; }
  const char* message() const { return error_.message; }

 private:
  sd_bus_error error_{};  // SD_BUS_ERROR_NULL, without its C99 compound literal
};

}  // namespace rocmtune::bus
