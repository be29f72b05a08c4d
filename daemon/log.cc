#include "daemon/log.h"

#include <sys/stat.h>
#include <syslog.h>
#include <systemd/sd-journal.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "bus/contract.h"
#include "bus/handles.h"
#include "daemon/callers.h"
#include "daemon/refusal_limiter.h"
#include "util/text.h"

namespace rocmtune::daemon {
namespace {

// A logged argument or message is bounded: a 1 MiB argument (tests/daemon/hostile_calls.py)
// must not become a 1 MiB journal entry. The change's result document, the message of a
// refusal, is in the reply and in the change's own journal entries (api/events.cc).
constexpr size_t kMaxArg = 80;
constexpr size_t kMaxMessage = 400;

std::string Bounded(std::string_view s, size_t max) {
  std::string out = text::EscapeControl(s.substr(0, max));
  if (s.size() > max) out += "…";
  return out;
}

// The methods whose first argument says what was asked. Doctor's is a crash log: not logged.
bool KeyArgument(std::string_view member) {
  static constexpr std::array<std::string_view, 6> kWithKey = {"Plan",    "Apply",  "ShowProfile",
                                                               "Explain", "Revert", "CheckCompute"};
  for (std::string_view m : kWithKey)
    if (m == member) return true;
  return false;
}

// systemd.exec(5) "JOURNAL_STREAM": set when stderr is connected to the journal; it holds the
// stream's device and inode, compared with our stderr's so that a child's inherited variable
// does not send a terminal's output to the journal.
bool StderrIsJournal() {
  static const bool journal = [] {
    const char* stream = std::getenv("JOURNAL_STREAM");
    if (stream == nullptr) return false;
    struct stat st {};
    if (fstat(STDERR_FILENO, &st) < 0) return false;
    return fmt::format("{}:{}", st.st_dev, st.st_ino) == stream;
  }();
  return journal;
}

void Emit(int priority, const std::string& message, const CallInfo* call, std::string_view error) {
  if (!StderrIsJournal()) {
    std::fprintf(stderr, "rocmtuned: %s\n", message.c_str());
    return;
  }
  const std::string uid = call && call->uid ? std::to_string(*call->uid) : "";
  const std::string pid = call && call->pid ? std::to_string(*call->pid) : "";
  (void)sd_journal_send("MESSAGE=%s", message.c_str(), "PRIORITY=%i", priority, "SYSLOG_IDENTIFIER=rocmtuned",
                        "ROCMTUNE_METHOD=%s", call ? call->method.c_str() : "", "ROCMTUNE_ERROR=%.*s",
                        static_cast<int>(error.size()), error.data(), "ROCMTUNE_CALLER_UID=%s", uid.c_str(),
                        "ROCMTUNE_CALLER_PID=%s", pid.c_str(), "ROCMTUNE_CALLER_NAME=%s",
                        call ? call->sender.c_str() : "", nullptr);
}

}  // namespace

std::string CallInfo::Text() const {
  std::string out = method;
  if (!args.empty()) out += " " + args;
  out += " from";
  if (uid) out += fmt::format(" uid {}", *uid);
  if (pid) out += fmt::format(" pid {}", *pid);
  out += fmt::format(" ({})", sender.empty() ? "unknown sender" : sender);
  return out;
}

CallInfo InfoOf(sd_bus_message* call, std::string_view property) {
  CallInfo info;
  if (call == nullptr) return info;
  const char* member = sd_bus_message_get_member(call);
  info.method = property.empty() ? (member ? member : "?") : fmt::format("Get {}", property);
  const char* sender = sd_bus_message_get_sender(call);
  info.sender = sender ? sender : "";
  const char* signature = sd_bus_message_get_signature(call, 1);
  if (property.empty() && member && KeyArgument(member) && signature && signature[0] == 's' &&
      sd_bus_message_rewind(call, 1) >= 0) {
    const char* arg = nullptr;
    if (sd_bus_message_read(call, "s", &arg) >= 0 && arg) info.args = fmt::format("'{}'", Bounded(arg, kMaxArg));
  }
  // Never asked of the bus here: that call waited on the loop behind every queued message. What
  // the daemon learnt of the sender for its request (daemon/callers.h), else what the message
  // carries (dbus-daemon: nothing).
  if (auto known = KnownCaller(info.sender)) {
    info.uid = known->uid;
    info.pid = known->pid;
    return info;
  }
  if (sd_bus_creds* creds = sd_bus_message_get_creds(call)) {
    uid_t uid = 0;
    pid_t pid = 0;
    if (sd_bus_creds_get_euid(creds, &uid) >= 0) info.uid = uid;
    if (sd_bus_creds_get_pid(creds, &pid) >= 0) info.pid = pid;
  }
  return info;
}

namespace {

void LogCallFailedNow(const CallInfo& call, std::string_view name, std::string_view message) {
  // A caller's own mistake or a refusal is a notice; a failure of the daemon is an error.
  const bool daemon_failed = name == bus::kErrorFailed || !name.starts_with(bus::kErrorPrefix);
  const bool denied = name == bus::kErrorAccessDenied || name == bus::kErrorInteractiveRequired;
  const int priority = daemon_failed && !denied ? LOG_ERR : LOG_NOTICE;
  std::string text = fmt::format("{}: {}: {}", call.Text(), name, Bounded(message, kMaxMessage));
  // Any user may call with bad arguments or be denied as often as it likes: its notices are
  // bounded as polkit's denials are (RefusalLimiter, per uid; root's never). Only the loop logs
  // calls, so one limiter without a lock.
  // A caller whose uid is not known shares one budget (uid -1): any user may be that caller.
  if (priority == LOG_NOTICE && (!call.uid || *call.uid != 0)) {
    static RefusalLimiter limiter;
    const uid_t uid = call.uid.value_or(static_cast<uid_t>(-1));
    auto dropped = limiter.Admit(uid);
    if (!dropped) return;
    if (*dropped > 0)
      text += call.uid ? fmt::format(" ({} more for uid {} were not logged)", *dropped, uid)
                       : fmt::format(" ({} more from callers not yet known were not logged)", *dropped);
  }
  Emit(priority, text, &call, name);
}

}  // namespace

void LogCallFailed(const CallInfo& call, std::string_view name, std::string_view message) {
  // A caller not yet known is asked of the bus without waiting; the line is written with its
  // uid and pid when the bus answered (at once for a sender whose earlier request was resolved).
  if (!call.uid && !call.sender.empty()) {
    auto later = [info = call, name = std::string(name),
                  message = std::string(Bounded(message, kMaxMessage))](Result<CallerCreds> creds) mutable {
      if (creds) {
        info.uid = creds->uid;
        info.pid = creds->pid;
      }
      LogCallFailedNow(info, name, message);
    };
    if (ResolveCaller(call.sender, std::move(later))) return;
  }
  LogCallFailedNow(call, name, message);
}

void LogCaught(std::string_view where, const CallInfo* call, std::string_view what) {
  std::string text = fmt::format("{}: caught an exception: {}", where, Bounded(what, kMaxMessage));
  if (call) text = fmt::format("{} ({})", text, call->Text());
  Emit(LOG_ERR, text, call, bus::kErrorFailed);
}

void LogDropped(std::string_view what, std::string_view why) {
  Emit(LOG_WARNING, fmt::format("dropped {}: {}", what, Bounded(why, kMaxMessage)), nullptr, "");
}

int ReplyError(sd_bus_message* call, std::string_view name, std::string_view message) {
  LogCallFailed(InfoOf(call), name, message);
  const std::string name_text(name), message_text(message);
  int r = sd_bus_reply_method_errorf(call, name_text.c_str(), "%s", message_text.c_str());
  if (r < 0) LogDropped(fmt::format("the error reply to {}", InfoOf(call).method), std::strerror(-r));
  return r;
}

}  // namespace rocmtune::daemon
