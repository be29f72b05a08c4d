#include "daemon/change_methods.h"

#include <atomic>
#include <cerrno>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "api/change.h"
#include "daemon/bus_errors.h"
#include "daemon/bus_options.h"
#include "daemon/helper_socket.h"
#include "daemon/polkit.h"
#include "util/json_text.h"

namespace rocmtune::daemon {
namespace {

constexpr const char* kInteractiveRequired = "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired";
constexpr size_t kMaxKnobs = 256;

using RunFn = std::function<Result<api::ChangeReport>(const sys::Root&, const api::ChangeOptions&, api::Writer&)>;

struct Request {
  std::string action;  // the polkit action
  std::map<std::string, std::string> details;
  RunFn run;
  bool check = false;
  bool force = false;
};

// The reply of a finished change: the result document, or a typed error whose message is that
// document (a client shows the refusals and conflicts it lists).
JobResult ToResult(const Result<api::ChangeReport>& report, bool challenged) {
  if (!report) {
    std::string name(ErrorName(report.error().code));
    if (report.error().code == ErrorCode::kNotAuthorized && challenged) name = kInteractiveRequired;
    return {name, report.error().message, ""};
  }
  std::string text = JsonText(api::ResultJson(*report));
  if (report->status == api::ChangeStatus::kOk) return {"", text, report->outcome.transaction.value_or("")};
  std::string name(ErrorName(report->status));
  if (report->status == api::ChangeStatus::kNotAuthorized && challenged) name = kInteractiveRequired;
  return {name, text, ""};
}

Result<Caller> CallerOf(sd_bus_message* call) {
  Caller caller;
  const char* sender = sd_bus_message_get_sender(call);
  caller.sender = sender ? sender : "";
  sd_bus_creds* creds = nullptr;
  int r = sd_bus_query_sender_creds(call, SD_BUS_CREDS_EUID | SD_BUS_CREDS_AUGMENT, &creds);
  if (r < 0) return Fail(ErrorCode::kNotAuthorized, "cannot tell who is calling", -r);
  std::unique_ptr<sd_bus_creds, SdUnref<sd_bus_creds, sd_bus_creds_unref>> held(creds);
  uid_t uid = 0;
  if (sd_bus_creds_get_euid(creds, &uid) < 0) return Fail(ErrorCode::kNotAuthorized, "cannot tell who is calling");
  caller.uid = uid;
  caller.interactive = sd_bus_message_get_allow_interactive_authorization(call) > 0;
  return caller;
}

int Reply(sd_bus_message* call, const JobResult& result) {
  if (result.error_name.empty()) return sd_bus_reply_method_return(call, "s", result.text.c_str());
  return sd_bus_reply_method_errorf(call, result.error_name.c_str(), "%s", result.text.c_str());
}

int Start(sd_bus_message* call, Manager& self, sd_bus_error* ret, Request request) {
  auto root = self.root().Duplicate();
  if (!root) return SetError(ret, root.error());
  if (request.check) {
    CheckOnlyWriter writer;
    api::ChangeOptions options{.check = true, .force = request.force, .on_planned = {}};
    return Reply(call, ToResult(request.run(*root, options, writer), false));
  }
  if (self.Busy()) {
    sd_bus_error_set(ret, "org.rocmtune1.Error.Busy", "another change is running; ask again when it is done");
    return -EBUSY;
  }
  auto caller = CallerOf(call);
  if (!caller) return SetError(ret, caller.error());
  auto shared_root = std::make_shared<sys::Root>(std::move(*root));
  std::shared_ptr<sd_bus_message> held(sd_bus_message_ref(call), sd_bus_message_unref);
  auto job = [shared_root, request = std::move(request), caller = *caller, socket = self.helper_socket()] {
    bool challenged = false;
    HelperSocketWriter writer(socket, [&]() -> Result<void> {
      auto answer = CheckAuthorization(caller, request.action, request.details);
      if (!answer) return Fail(ErrorCode::kNotAuthorized, answer.error().message);
      if (answer->authorized) return {};
      challenged = answer->challenge;
      return Fail(ErrorCode::kNotAuthorized, answer->why);
    });
    // The caller's uid goes into every journal entry of the change (a polkit denial included).
    api::ChangeOptions options{.check = false, .force = request.force, .on_planned = {}, .caller_uid = caller.uid};
    auto report = request.run(*shared_root, options, writer);  // sets `challenged`: read it after
    return ToResult(report, challenged);
  };
  auto done = [held, bus = self.bus(), manager = &self](const JobResult& result) {
    (void)Reply(held.get(), result);
    if (!result.error_name.empty() || result.transaction.empty()) return;
    manager->RefreshInventory();  // what the transaction changed is seen by the next read
    (void)sd_bus_emit_signal(bus, kObjectPath, kInterface, "TransactionCommitted", "s", result.transaction.c_str());
    (void)sd_bus_emit_properties_changed(bus, kObjectPath, kInterface, "ActiveProfile", "PendingReboot", nullptr);
  };
  if (!self.worker().Start(std::move(job), std::move(done))) {
    sd_bus_error_set(ret, "org.rocmtune1.Error.Busy", "another change is running; ask again when it is done");
    return -EBUSY;
  }
  return 1;  // the reply comes from `done`
}

Result<std::vector<std::string>> ReadStrings(sd_bus_message* call) {
  char** strv = nullptr;
  if (int r = sd_bus_message_read_strv(call, &strv); r < 0)
    return Fail(ErrorCode::kInvalidArgument, "the keys must be a list of strings (as)", -r);
  std::vector<std::string> out;
  for (char** s = strv; s && *s; ++s) {
    out.emplace_back(*s);
    free(*s);  // NOLINT(cppcoreguidelines-no-malloc): sd_bus_message_read_strv's allocation
  }
  free(strv);  // NOLINT(cppcoreguidelines-no-malloc)
  if (out.empty() || out.size() > kMaxKnobs)
    return Fail(ErrorCode::kInvalidArgument, fmt::format("give 1 to {} keys", kMaxKnobs));
  return out;
}

Result<std::vector<std::string>> ReadAssignments(sd_bus_message* call) {
  std::vector<std::string> out;
  if (int r = sd_bus_message_enter_container(call, 'a', "{ss}"); r < 0)
    return Fail(ErrorCode::kInvalidArgument, "the knobs must be a dictionary of strings (a{ss})", -r);
  for (;;) {
    const char* key = nullptr;
    const char* value = nullptr;
    int r = sd_bus_message_read(call, "{ss}", &key, &value);
    if (r < 0) return Fail(ErrorCode::kInvalidArgument, "the knobs must be a dictionary of strings (a{ss})", -r);
    if (r == 0) break;
    if (std::string_view(key).find('=') != std::string_view::npos)
      return Fail(ErrorCode::kInvalidArgument, fmt::format("'{}': a knob key has no '='", key));
    out.push_back(fmt::format("{}={}", key, value));
    if (out.size() > kMaxKnobs) return Fail(ErrorCode::kInvalidArgument, fmt::format("more than {} knobs", kMaxKnobs));
  }
  if (int r = sd_bus_message_exit_container(call); r < 0)
    return Fail(ErrorCode::kInvalidArgument, "the knobs must be a dictionary of strings (a{ss})", -r);
  if (out.empty()) return Fail(ErrorCode::kInvalidArgument, "no knobs to set");
  return out;
}

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : " ") + i;
  return out;
}

}  // namespace

Result<void> CheckOnlyWriter::MayWrite(const sys::Root&) const {
  return Fail(ErrorCode::kNotAuthorized, "a check writes nothing");
}
Result<plan::HelperReply> CheckOnlyWriter::Apply(const plan::Plan&, bool) {
  return Fail(ErrorCode::kNotAuthorized, "a check writes nothing");
}
Result<plan::HelperReply> CheckOnlyWriter::Recover() {
  return Fail(ErrorCode::kNotAuthorized, "a check writes nothing");
}

int ApplyMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  const char* profile_raw = nullptr;
  if (int r = sd_bus_message_read(call, "s", &profile_raw); r < 0) return r;
  auto options = ReadOptions(call, {kOptionWith, kOptionForce, kOptionCheck});
  if (!options) return SetError(ret, options.error());
  std::string profile(profile_raw);
  Request request{"org.rocmtune1.apply", {{"profile", profile}}, {}, options->check, options->force};
  request.run = [profile, with = options->with](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
    return api::Apply(root, profile, with, o, w);
  };
  return Start(call, self, ret, std::move(request));
}

int SetMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  auto assignments = ReadAssignments(call);
  if (!assignments) return SetError(ret, assignments.error());
  auto options = ReadOptions(call, {kOptionForce, kOptionCheck});
  if (!options) return SetError(ret, options.error());
  Request request{"org.rocmtune1.set", {{"knobs", Joined(*assignments)}}, {}, options->check, options->force};
  request.run = [assignments = *assignments](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
    return api::Set(root, assignments, o, w);
  };
  return Start(call, self, ret, std::move(request));
}

int UnsetMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  auto keys = ReadStrings(call);
  if (!keys) return SetError(ret, keys.error());
  auto options = ReadOptions(call, {kOptionForce, kOptionCheck});
  if (!options) return SetError(ret, options.error());
  Request request{"org.rocmtune1.set", {{"knobs", Joined(*keys)}}, {}, options->check, options->force};
  request.run = [keys = *keys](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
    return api::Unset(root, keys, o, w);
  };
  return Start(call, self, ret, std::move(request));
}

int RevertMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  const char* id_raw = nullptr;
  if (int r = sd_bus_message_read(call, "s", &id_raw); r < 0) return r;
  std::string id(id_raw);
  Request request{"org.rocmtune1.revert", {{"transaction", id.empty() ? "last" : id}}, {}, false, false};
  request.run = [id](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
    return api::Revert(root, id, o, w);
  };
  return Start(call, self, ret, std::move(request));
}

int ResetMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  Request request{"org.rocmtune1.revert", {{"transaction", "all"}}, {}, false, false};
  request.run = [](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
    return api::Reset(root, o, w);
  };
  return Start(call, self, ret, std::move(request));
}

}  // namespace rocmtune::daemon
