#include "daemon/read_methods.h"

#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/doctor.h"
#include "api/log_input.h"
#include "api/profiles.h"
#include "api/system.h"
#include "daemon/bus_errors.h"
#include "diagnose/finding.h"
#include "util/json_text.h"

namespace rocmtune::daemon {

int ReplyText(sd_bus_message* call, const std::string& text) {
  return sd_bus_reply_method_return(call, "s", text.c_str());
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

int DoctorMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  const char* log = nullptr;
  if (int r = sd_bus_message_read(call, "s", &log); r < 0) return r;
  // sd-bus has checked the string (UTF-8, no NUL) when it read the message; the bound is ours.
  std::string_view text(log, std::strlen(log));
  if (auto ok = api::CheckDoctorLogText(text); !ok) return SetError(ret, ok.error());
  std::optional<std::string> given;
  if (!text.empty()) given.emplace(text);
  api::DoctorOptions options;
  options.log = std::move(given);
  options.caller = false;  // no one caller's access to /dev/kfd: DropCallerChecks says so
  auto report = api::Doctor(self.root(), std::move(options));
  if (!report) return SetError(ret, report.error());
  DropCallerChecks(*report);
  return ReplyText(call, JsonText(api::DoctorJson(*report)));
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
