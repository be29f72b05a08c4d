// Who is calling, asked of the bus without waiting for it. dbus-daemon does not put the sender's
// credentials in a message, so sd_bus_query_sender_creds() asks the bus driver with a blocking
// call: on the event loop that waited behind every message the bus had queued for us (round-3
// review: root's Set failed after 36.7 s with "cannot tell who is calling" while one user's
// Doctor calls filled the queue, and sd_bus_call() read those 16 MiB messages into memory while
// it waited). Callers asks org.freedesktop.DBus.GetConnectionCredentials asynchronously instead,
// keeps the answer for the sender's unique name (never reused while the bus runs), and answers
// every request of that sender from it.
#pragma once

#include <sys/types.h>
#include <systemd/sd-bus.h>

#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bus/handles.h"
#include "util/result.h"

namespace rocmtune::daemon {

struct CallerCreds {
  uid_t uid = static_cast<uid_t>(-1);
  std::optional<pid_t> pid;
};

class Callers {
 public:
  using Done = std::function<void(Result<CallerCreds>)>;
  // Senders remembered (a unique name is a few dozen bytes); the oldest are forgotten first.
  static constexpr size_t kMaxKnown = 4096;
  // Requests waiting for the bus's answer, over every sender: more are refused (kBusy) at once,
  // so what the daemon holds while it waits stays bounded.
  static constexpr size_t kMaxWaiting = 256;

  Callers() = default;
  ~Callers();
  Callers(const Callers&) = delete;
  Callers& operator=(const Callers&) = delete;
  Callers(Callers&&) = delete;
  Callers& operator=(Callers&&) = delete;

  // Also makes this the instance KnownCaller() reads (the daemon's log).
  void Attach(sd_bus* bus);
  // Calls `done` on the loop with `sender`'s credentials: before returning when they are known,
  // else when the bus answered (kNotAuthorized: the bus could not say). kBusy, and `done` never
  // called, when kMaxWaiting requests wait already.
  Result<void> Resolve(const std::string& sender, Done done);
  std::optional<CallerCreds> Known(std::string_view sender) const;
  size_t Waiting() const { return waiting_; }

 private:
  struct Lookup {
    Callers* owner = nullptr;
    std::string sender;
    bus::SlotPtr call;
    std::vector<Done> waiting;
  };
  static int OnReply(sd_bus_message* reply, void* userdata, sd_bus_error* ret) noexcept;
  int Answered(Lookup& lookup, sd_bus_message* reply);
  void Remember(const std::string& sender, const CallerCreds& creds);

  sd_bus* bus_ = nullptr;
  std::map<std::string, std::unique_ptr<Lookup>, std::less<>> lookups_;
  std::map<std::string, CallerCreds, std::less<>> known_;
  std::deque<std::string> order_;  // known_'s senders, oldest first
  size_t waiting_ = 0;
};

// What the attached Callers knows of `sender` (nothing is asked): the daemon's log names the uid
// and pid of a caller whose request was resolved, and never waits for the bus.
std::optional<CallerCreds> KnownCaller(std::string_view sender);
// The attached Callers' Resolve; kIo when none is attached (`done` never called then).
Result<void> ResolveCaller(const std::string& sender, Callers::Done done);

}  // namespace rocmtune::daemon
