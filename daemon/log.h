// The daemon's own log: every failure it answers with a bus error, every exception it catches
// and every event it drops, once, at the edge (daemon/guard.h and the replies), with who asked
// and what. Under systemd (JOURNAL_STREAM names our stderr) an entry goes to the journal with
// its fields (ROCMTUNE_METHOD, ROCMTUNE_ERROR, ROCMTUNE_CALLER_UID/_PID/_NAME), else one line
// on stderr: `journalctl -u rocmtuned` shows either. After hostnamed's log_error_errno() before
// every error reply. The core logs nothing of this (CONTRIBUTING.md, "Code style").
#pragma once

#include <sys/types.h>
#include <systemd/sd-bus.h>

#include <optional>
#include <string>
#include <string_view>

namespace rocmtune::daemon {

// Who sent a call and what it asked: read from the message once, when something is logged.
struct CallInfo {
  std::string method;  // the member, or "Get Property" for a property
  std::string args;    // the request's key argument (a profile, a key, an id), quoted; may be ""
  std::string sender;  // the caller's unique name (":1.42")
  std::optional<uid_t> uid;
  std::optional<pid_t> pid;
  // "Apply 'rdna1-safe' from uid 1000 pid 4242 (:1.42)"
  std::string Text() const;
};

// `call`'s member, key argument and sender; `property` names a property read instead of the
// member. Asks the bus for the sender's uid and pid when the message does not carry them.
CallInfo InfoOf(sd_bus_message* call, std::string_view property = {});

// A call answered with the error `name`: "METHOD ARGS from uid U pid P (NAME): ERROR: MESSAGE".
void LogCallFailed(const CallInfo& call, std::string_view name, std::string_view message);
// An exception caught in `where` (a callback's name, and the call when there is one).
void LogCaught(std::string_view where, const CallInfo* call, std::string_view what);
// Something the daemon had to give up: an event it could not act on, a reply or signal it
// could not send.
void LogDropped(std::string_view what, std::string_view why);

// Replies to `call` with the error `name` and `message`, and logs it (LogCallFailed): every
// error reply the daemon sends outside a handler's return value goes through here.
int ReplyError(sd_bus_message* call, std::string_view name, std::string_view message);

}  // namespace rocmtune::daemon
