#include "daemon/read_methods.h"

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/doctor.h"
#include "api/log_input.h"
#include "api/profiles.h"
#include "api/system.h"
#include "bus/handles.h"
#include "daemon/bus_errors.h"
#include "daemon/log.h"
#include "diagnose/finding.h"
#include "util/json_text.h"

namespace rocmtune::daemon {

int ReplyText(sd_bus_message* call, const std::string& text) {
  return sd_bus_reply_method_return(call, "s", text.c_str());
}

int ReplyJson(sd_bus_message* call, const nlohmann::ordered_json& doc) {
  if (sd_bus_message_get_expect_reply(call) == 0) return 0;  // as sd_bus_reply_method_return
  const std::string text = JsonText(doc);
  sd_bus_message* raw = nullptr;
  if (int r = sd_bus_message_new_method_return(call, &raw); r < 0) return r;
  bus::MessagePtr reply(raw);
  char* space = nullptr;  // text.size() bytes; sd-bus wrote the NUL after them
  if (int r = sd_bus_message_append_string_space(reply.get(), text.size(), &space); r < 0) return r;
  text.copy(space, text.size());
  return sd_bus_send(nullptr, reply.get(), nullptr);
}

namespace {

// diagnose/machine_checks.cc's access checks ask whether *this process* may open /dev/kfd (getuid, access):
// in the daemon that is user rocmtune, not the caller. They are left to the caller's rocmtunectl.
void DropCallerChecks(api::DoctorReport& report) {
  std::erase_if(report.findings, [](const api::DoctorFinding& f) { return f.id.starts_with("access."); });
  if (report.gpus.empty()) return;
  report.findings.push_back(
      diagnose::MakeFinding(kAccessNotChecked, detect::Severity::kInfo, "/dev/kfd",
                            "Whether the caller may open /dev/kfd and the render nodes is not checked by rocmtuned",
                            "rocmtuned runs as its own user; `rocmtunectl doctor` checks the user that runs it"));
}

}  // namespace

namespace {

// The answer to one Doctor request, on the doctor worker's thread.
JobResult RunDoctor(const sys::Root& root, std::optional<std::string> log) {
  api::DoctorOptions options;
  options.log = std::move(log);
  options.caller = false;  // no one caller's access to /dev/kfd: DropCallerChecks says so
  auto report = api::Doctor(root, std::move(options));
  if (!report) return {std::string(ErrorName(report.error().code)), report.error().message, ""};
  DropCallerChecks(*report);
  return {"", JsonText(api::DoctorJson(*report)), ""};
}

// Bytes of logs held while the bus says who sent them: a user's connections each send one before
// their sender is known; beyond this the next is Busy at once.
constexpr size_t kMaxLogBytesWaiting = 32u << 20;
size_t g_log_bytes_waiting = 0;  // the loop's thread only

}  // namespace

// Nothing of the request runs on the loop: who calls is asked of the bus without waiting
// (daemon/callers.h), a caller that is not root may send at most kMaxDoctorLogBytesUser, and the
// work is the doctor worker's (one request per uid, bounded queue: daemon/doctor_worker.h).
int DoctorMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  const char* log = nullptr;
  if (int r = sd_bus_message_read(call, "s", &log); r < 0) return r;
  // sd-bus has checked the string (UTF-8, no NUL) when it read the message; the bounds are ours.
  std::string_view text(log, std::strlen(log));
  const char* sender_raw = sd_bus_message_get_sender(call);
  const std::string sender = sender_raw ? sender_raw : "";
  // A known user's oversized log is refused by its size alone, before anything reads its bytes.
  if (auto known = self.callers().Known(sender); known && known->uid != 0) {
    if (auto ok = api::CheckDoctorLogSize(text.size(), "given", api::kMaxDoctorLogBytesUser); !ok)
      return SetError(ret, ok.error());
  }
  if (auto ok = api::CheckDoctorLogText(text); !ok) return SetError(ret, ok.error());
  const size_t held_bytes = self.callers().Known(sender) ? 0 : text.size();
  if (held_bytes > 0 && g_log_bytes_waiting + held_bytes > kMaxLogBytesWaiting)
    return SetError(ret, Error{ErrorCode::kBusy, 0, "too many Doctor logs wait to be looked at; ask again"});
  g_log_bytes_waiting += held_bytes;
  std::shared_ptr<sd_bus_message> held(sd_bus_message_ref(call), sd_bus_message_unref);
  auto asked = self.callers().Resolve(sender, [held, &self, text, held_bytes](Result<CallerCreds> creds) {
    g_log_bytes_waiting -= held_bytes;
    if (!creds) {
      (void)ReplyFailure(held.get(), creds.error());
      return;
    }
    if (creds->uid != 0)
      if (auto ok = api::CheckDoctorLogText(text, api::kMaxDoctorLogBytesUser); !ok) {
        (void)ReplyFailure(held.get(), ok.error());
        return;
      }
    auto root = self.root().Duplicate();
    if (!root) {
      (void)ReplyFailure(held.get(), root.error());
      return;
    }
    std::optional<std::string> given;
    if (!text.empty()) given.emplace(text);  // `text` lives in `held`, which the loop keeps
    auto job = [root = std::make_shared<sys::Root>(std::move(*root)), given = std::move(given)]() mutable {
      return RunDoctor(*root, std::move(given));
    };
    auto queued = self.doctor().Submit(creds->uid, std::move(job), [held](const JobResult& result) {
      if (!result.error_name.empty()) {
        (void)ReplyError(held.get(), result.error_name, result.text);
        return;
      }
      if (int r = ReplyText(held.get(), result.text); r < 0)
        LogDropped(fmt::format("the reply to {}", InfoOf(held.get()).Text()), std::strerror(-r));
    });
    if (!queued) (void)ReplyFailure(held.get(), queued.error());
  });
  if (!asked) {
    g_log_bytes_waiting -= held_bytes;
    return SetError(ret, asked.error());
  }
  return 1;  // answered by the doctor worker
}

int ListProfilesMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  auto system = self.LoadSystem();
  if (!system) return SetError(ret, system.error());
  return ReplyText(call, JsonText(api::ProfilesJson(api::ListProfiles(*system))));
}

int ShowProfileMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  const char* name = nullptr;
  if (int r = sd_bus_message_read(call, "s", &name); r < 0) return r;
  auto system = self.LoadSystem();
  if (!system) return SetError(ret, system.error());
  auto report = api::ShowProfile(*system, name, {});
  if (!report) return SetError(ret, report.error());
  return ReplyText(call, JsonText(api::ProfileJson(*report)));
}

}  // namespace rocmtune::daemon
