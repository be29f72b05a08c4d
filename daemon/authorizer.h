// polkit's answers for changes, asked on the daemon's own event loop without waiting for them
// (org.freedesktop.PolicyKit1.Authority.CheckAuthorization as an asynchronous call). A request is
// authorized before it may take the one change slot (ChangeWorker), so a caller whose polkit
// agent never answers holds nothing but its own question:
//   - one pending question per uid: a second one from the same user is refused at once (Busy);
//   - a question is bounded (kInteractiveTimeout with an agent, kTimeout without) and cancelled
//     at polkit (CancelCheckAuthorization) when it times out or when the caller's connection goes
//     away (NameOwnerChanged), so polkit's agent stops asking too.
// Root is never asked (polkit authorizes uid 0 anyway): the caller does not use this for uid 0.
#pragma once

#include <systemd/sd-bus.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "bus/handles.h"
#include "daemon/polkit.h"
#include "util/result.h"

namespace rocmtune::daemon {

// How long a person may take to answer polkit's agent, and how long polkit may take without one.
inline constexpr std::chrono::seconds kInteractiveTimeout{120};
inline constexpr std::chrono::seconds kTimeout{25};

class Authorizer {
 public:
  // The answer, or kIo when polkit could not be asked or did not answer in time.
  using Done = std::function<void(Result<AuthorizationAnswer>)>;

  Authorizer() = default;
  ~Authorizer() = default;
  Authorizer(const Authorizer&) = delete;
  Authorizer& operator=(const Authorizer&) = delete;
  Authorizer(Authorizer&&) = delete;
  Authorizer& operator=(Authorizer&&) = delete;

  void Attach(sd_bus* bus) { bus_ = bus; }
  // Asks polkit whether `caller` may do `action`; `done` runs later on the loop, once (never when
  // the caller went away first). kBusy-like refusal (false) when the caller's uid already waits.
  Result<void> Ask(const Caller& caller, const std::string& action, const std::map<std::string, std::string>& details,
                   Done done);
  bool Pending() const { return !pending_.empty(); }
  size_t PendingCount() const { return pending_.size(); }

 private:
  struct Question {
    Authorizer* owner = nullptr;
    Caller caller;
    std::string action;
    std::string cancellation_id;
    bus::SlotPtr call;
    bus::SlotPtr watch;  // the caller's name going away
    Done done;
  };
  static int OnAnswer(sd_bus_message* reply, void* userdata, sd_bus_error* ret) noexcept;
  static int OnNameOwnerChanged(sd_bus_message* signal, void* userdata, sd_bus_error* ret) noexcept;
  // Takes the question out of pending_ (it ends when the returned pointer does).
  std::unique_ptr<Question> Take(uid_t uid);
  void Cancel(const std::string& cancellation_id);

  sd_bus* bus_ = nullptr;
  uint64_t next_id_ = 0;
  std::map<uid_t, std::unique_ptr<Question>> pending_;
};

}  // namespace rocmtune::daemon
