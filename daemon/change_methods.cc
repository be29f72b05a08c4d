#include "daemon/change_methods.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/change.h"
#include "api/history.h"
#include "api/reapply.h"
#include "api/trial.h"
#include "bus/handles.h"
#include "daemon/boot_files_cache.h"
#include "daemon/bus_errors.h"
#include "daemon/bus_options.h"
#include "daemon/callers.h"
#include "daemon/change_summary.h"
#include "daemon/helper_socket.h"
#include "daemon/log.h"
#include "daemon/polkit.h"
#include "util/json_text.h"

namespace rocmtune::daemon {
namespace {

using bus::kActionAdminLines;
using bus::kActionApply;
using bus::kActionForce;
using bus::kActionRevert;
using bus::kActionSet;
using bus::kActionTrial;
using bus::kErrorBusy;
using bus::kErrorInteractiveRequired;
constexpr size_t kMaxKnobs = 256;

using RunFn = std::function<Result<api::ChangeReport>(const sys::Root&, const api::ChangeOptions&, api::Writer&)>;

struct Request {
  std::string action;  // the polkit action of the request without force
  std::map<std::string, std::string> details;
  RunFn run;
  bool check = false;
  bool force = false;
  std::vector<std::string> with;  // apply: optional items
  bool trial = false;             // --trial: the planned and the run request are one trial (trial_id)
  bool admin_lines = false;       // Set/Unset: the admin's lines are commented out too
  std::string trial_id = {};
};

// The reply of a finished change: the result document, or a typed error whose message is that
// document (a client shows the refusals and conflicts it lists).
JobResult ToResult(const Result<api::ChangeReport>& report, bool challenged) {
  if (!report) {
    std::string name(ErrorName(report.error().code));
    if (report.error().code == ErrorCode::kNotAuthorized && challenged) name = kErrorInteractiveRequired;
    return {name, report.error().message, ""};
  }
  std::string text = JsonText(api::ResultJson(*report));
  if (report->status == api::ChangeStatus::kOk) return {"", text, report->outcome.transaction.value_or("")};
  std::string name(ErrorName(report->status));
  if (report->status == api::ChangeStatus::kNotAuthorized && challenged) name = kErrorInteractiveRequired;
  return {name, text, ""};
}

Caller CallerOf(sd_bus_message* call, const CallerCreds& creds) {
  Caller caller;
  const char* sender = sd_bus_message_get_sender(call);
  caller.sender = sender ? sender : "";
  caller.uid = creds.uid;
  caller.interactive = sd_bus_message_get_allow_interactive_authorization(call) > 0;
  return caller;
}

// A change's reply; an error one is logged with its caller (ReplyError), as the handlers'
// returned errors are by their guard.
int Reply(sd_bus_message* call, const JobResult& result) {
  if (!result.error_name.empty()) return ReplyError(call, result.error_name, result.text);
  int r = sd_bus_reply_method_return(call, "s", result.text.c_str());
  if (r < 0) LogDropped(fmt::format("the reply to {}", InfoOf(call).Text()), std::strerror(-r));
  return r;
}

int ReplyBusy(sd_bus_message* call, const std::string& why) { return ReplyError(call, kErrorBusy, why); }

// What polkit is asked: force overrides rocmtune's own refusals (drift, a setting that taints the
// kernel, a size above the RAM), so it is its own action that no profile- or key-scoped rule
// grants by accident; an apply with optional items sets knobs the profile leaves out, which is
// what org.rocmtune1.set allows.
// Editing the admin's own lines and trying a boot are actions of their own, after force: a rule
// that lets a user set or unset one key grants neither (round-3 review).
std::string ActionFor(const Request& request) {
  if (request.force) return kActionForce;
  if (request.admin_lines) return kActionAdminLines;
  if (request.trial) return kActionTrial;
  if (!request.with.empty()) return kActionSet;
  return request.action;
}

std::map<std::string, std::string> DetailsFor(const Request& request, const ChangeSummary& summary) {
  std::map<std::string, std::string> details = request.details;
  details["force"] = request.force ? "true" : "false";
  // A trial writes only a one-shot boot entry, its switch and its state now; the change itself is
  // committed by the trial boot's unit as root. Rules may treat it apart.
  details["trial"] = request.trial ? "true" : "false";
  details["admin_lines"] = request.admin_lines ? "true" : "false";
  details["request"] = request.action;  // the action the request is without force
  std::string with, keys, steps;
  for (const std::string& w : request.with) with += (with.empty() ? "" : " ") + w;
  for (const std::string& k : summary.keys) keys += (keys.empty() ? "" : " ") + k;
  for (const std::string& s : summary.steps) steps += (steps.empty() ? "" : "\n") + s;
  details["with"] = with;
  details["keys"] = keys;
  details["steps"] = steps;
  details["summary"] = summary.Text();
  return details;
}

// A writer for a request polkit already allowed (or root's): it never asks again, and it runs
// only the change that was authorized: a plan whose steps differ from the authorized ones (the
// machine changed between the question and the change) is refused.
class AuthorizedWriter final : public api::Writer {
 public:
  AuthorizedWriter(std::string socket, std::optional<ChangeSummary> authorized, BootFilesCache& boot_files)
      : inner_(std::move(socket), [] { return Result<void>{}; }),
        authorized_(std::move(authorized)),
        boot_files_(boot_files) {}
  Result<void> MayWrite(const sys::Root&) const override { return {}; }
  Result<plan::HelperReply> Apply(const plan::Plan& plan, bool force) override {
    if (authorized_) {
      api::ChangeReport now;
      now.plan = plan;
      if (Summarize(now).steps != authorized_->steps)
        return Fail(ErrorCode::kNotAuthorized,
                    "the change is no longer the one authorized (the machine changed meanwhile); ask again");
    }
    return inner_.Apply(plan, force);
  }
  Result<plan::HelperReply> Recover() override { return inner_.Recover(); }
  // Root's or an authorized request: read again unless what is kept is current.
  Result<std::optional<sys::RootSupplement>> ReadBootFiles(const sys::Root& root) const override {
    return boot_files_.Get(root, /*admitted=*/true);
  }

 private:
  HelperSocketWriter inner_;
  std::optional<ChangeSummary> authorized_;
  BootFilesCache& boot_files_;
};

// Takes the change slot and runs the request there; the reply comes from the loop when it ends.
void RunChange(const std::shared_ptr<sd_bus_message>& held, Manager& self, Request request, const Caller& caller,
               std::optional<ChangeSummary> authorized) {
  if (self.worker().Busy()) {
    (void)ReplyBusy(held.get(), "another change is running; ask again when it is done");
    return;
  }
  auto root = self.root().Duplicate();
  if (!root) {
    (void)Reply(held.get(), {std::string(ErrorName(root.error().code)), root.error().message, ""});
    return;
  }
  auto shared_root = std::make_shared<sys::Root>(std::move(*root));
  auto job = [shared_root, request = std::move(request), caller, socket = self.helper_socket(),
              authorized = std::move(authorized), boot_files = &self.boot_files()] {
    AuthorizedWriter writer(socket, authorized, *boot_files);
    // The caller's uid goes into every journal entry of the change.
    api::ChangeOptions options{.check = false, .force = request.force, .on_planned = {}, .caller_uid = caller.uid};
    options.trial = request.trial;
    options.trial_id = request.trial_id;
    return ToResult(request.run(*shared_root, options, writer), false);
  };
  auto done = [held, bus = self.bus(), manager = &self](const JobResult& result) {
    (void)Reply(held.get(), result);
    if (!result.error_name.empty() || result.transaction.empty()) return;
    manager->boot_files().Invalidate();
    manager->RefreshInventory();  // what the transaction changed is seen by the next read
    manager->PublishExports("transaction " + result.transaction);
    if (int r =
            sd_bus_emit_signal(bus, kObjectPath, kInterface, "TransactionCommitted", "s", result.transaction.c_str());
        r < 0)
      LogDropped("the signal TransactionCommitted " + result.transaction, std::strerror(-r));
    if (int r = sd_bus_emit_properties_changed(bus, kObjectPath, kInterface, "ActiveProfile", "PendingReboot", nullptr);
        r < 0)
      LogDropped("the signal PropertiesChanged", std::strerror(-r));
  };
  if (!self.worker().Start(std::move(job), std::move(done)))
    (void)ReplyBusy(held.get(), "another change is running; ask again when it is done");
}

// A denial by polkit: one `refused` journal entry, at the caller's bounded rate.
void LogDenial(Manager& self, const Caller& caller, const api::ChangeReport& planned, const std::string& why) {
  auto dropped = self.refusals().Admit(caller.uid);
  if (!dropped) return;
  api::Event e;
  e.kind = api::EventKind::kRefused;
  e.verb = planned.plan.intent.verb;
  e.profile = planned.plan.intent.profile;
  e.reverts = planned.plan.intent.reverts;
  e.knobs = Summarize(planned).keys;
  e.reasons = {why};
  if (*dropped > 0)
    e.reasons.push_back(fmt::format("{} more refusals for uid {} were not logged", *dropped, caller.uid));
  e.root = api::EventRoot(self.root());
  e.caller_uid = caller.uid;
  api::LogEvent(e);
}

// Every change: a check is answered at once. Root's request takes the change slot directly
// (polkit is never asked for uid 0). Anyone else's is planned first, on the loop (milliseconds,
// no write): one that is refused or changes nothing is answered at once, without polkit and
// without a journal entry; otherwise polkit is asked asynchronously with the plan's summary, and
// only an authorized request takes the slot, where the plan must still be the authorized one.
void Continue(const std::shared_ptr<sd_bus_message>& held, Manager& self, Request request, const Caller& caller) {
  sd_bus_message* call = held.get();
  auto root = self.root().Duplicate();
  if (!root) {
    (void)ReplyFailure(call, root.error());
    return;
  }
  if (request.check) {
    CheckOnlyWriter writer(self.boot_files(), caller.uid == 0);
    api::ChangeOptions options{.check = true, .force = request.force, .on_planned = {}};
    options.trial = request.trial;
    options.trial_id = request.trial_id;
    (void)Reply(call, ToResult(request.run(*root, options, writer), false));
    return;
  }
  if (caller.uid == 0) {
    if (self.worker().Busy()) {
      (void)ReplyBusy(call, "another change is running; ask again when it is done");
      return;
    }
    RunChange(held, self, std::move(request), caller, std::nullopt);
    return;
  }

  CheckOnlyWriter writer(self.boot_files(), /*admitted=*/false);
  api::ChangeOptions plan_only{.check = true, .force = request.force, .on_planned = {}, .caller_uid = caller.uid};
  plan_only.trial = request.trial;
  plan_only.trial_id = request.trial_id;
  auto planned = request.run(*root, plan_only, writer);
  if (!planned) {
    (void)Reply(call, ToResult(planned, false));
    return;
  }
  planned->outcome.check = false;
  if (!WouldWrite(*planned) && !api::HasIncomplete(*root)) {
    (void)Reply(call, ToResult(*planned, false));
    return;
  }
  if (self.worker().Busy()) {
    (void)ReplyBusy(call, "another change is running; ask again when it is done");
    return;
  }

  ChangeSummary summary = Summarize(*planned);
  const std::string action = ActionFor(request);
  auto details = DetailsFor(request, summary);
  auto report = std::make_shared<api::ChangeReport>(std::move(*planned));
  auto answered = [held, manager = &self, request = std::move(request), caller, action, summary,
                   report](Result<AuthorizationAnswer> answer) mutable {
    if (!answer || !answer->authorized) {
      const std::string why = !answer ? answer.error().message : answer->why;
      report->status = api::ChangeStatus::kNotAuthorized;
      report->outcome.errors.push_back(
          why.find(action) == std::string::npos ? fmt::format("{} (polkit action {})", why, action) : why);
      LogDenial(*manager, caller, *report, why);
      (void)Reply(held.get(), ToResult(*report, answer && answer->challenge));
      return;
    }
    RunChange(held, *manager, std::move(request), caller, summary);
  };
  if (auto asked = self.authorizer().Ask(caller, action, details, std::move(answered)); !asked)
    (void)ReplyBusy(call, asked.error().message);
}

// Every change: who calls is asked of the bus without waiting (daemon/callers.h); then a check
// is answered at once. Root's request takes the change slot directly (polkit is never asked for
// uid 0). Anyone else's is planned first, on the loop (milliseconds, no write): one that is
// refused or changes nothing is answered at once, without polkit and without a journal entry;
// otherwise polkit is asked asynchronously with the plan's summary, and only an authorized
// request takes the slot, where the plan must still be the authorized one.
int Start(sd_bus_message* call, Manager& self, sd_bus_error* ret, Request request) {
  std::shared_ptr<sd_bus_message> held(sd_bus_message_ref(call), sd_bus_message_unref);
  const char* sender = sd_bus_message_get_sender(call);
  auto asked = self.callers().Resolve(sender ? sender : "",
                                      [held, &self, request = std::move(request)](Result<CallerCreds> creds) mutable {
                                        if (!creds) {
                                          (void)ReplyFailure(held.get(), creds.error());
                                          return;
                                        }
                                        Continue(held, self, std::move(request), CallerOf(held.get(), *creds));
                                      });
  if (!asked) return SetError(ret, asked.error());
  return 1;  // answered when the caller is known (at once when it was already)
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
Result<std::optional<sys::RootSupplement>> CheckOnlyWriter::ReadBootFiles(const sys::Root& root) const {
  return boot_files_.Get(root, admitted_);
}

// Set/Unset's polkit details: the keys, and whether the admin's lines are commented out too (the
// steps then name each admin file and line, change_summary.cc).
std::map<std::string, std::string> AdminLinesDetails(std::string knobs, bool admin_lines) {
  return {{"knobs", std::move(knobs)}, {"admin_lines", admin_lines ? "true" : "false"}};
}

namespace {

// `trial`: one id for the plan polkit is shown and the change run after it.
void SetTrial(Request& request, const BusOptions& options) {
  request.trial = options.trial;
  if (!options.trial) return;
  std::random_device random;
  request.trial_id = fmt::format("{:08x}", static_cast<uint32_t>(random()));
}

}  // namespace

int ApplyMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  const char* profile_raw = nullptr;
  if (int r = sd_bus_message_read(call, "s", &profile_raw); r < 0) return r;
  auto options = ReadOptions(call, {kOptionWith, kOptionForce, kOptionCheck, kOptionTrial});
  if (!options) return SetError(ret, options.error());
  std::string profile(profile_raw);
  Request request{kActionApply, {{"profile", profile}}, {}, options->check, options->force, options->with};
  SetTrial(request, *options);
  request.run = [profile, with = options->with](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
    return api::Apply(root, profile, with, o, w);
  };
  return Start(call, self, ret, std::move(request));
}

int SetMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  auto assignments = ReadAssignments(call);
  if (!assignments) return SetError(ret, assignments.error());
  auto options = ReadOptions(call, {kOptionForce, kOptionCheck, kOptionAdminLines, kOptionTrial});
  if (!options) return SetError(ret, options.error());
  Request request{
      kActionSet, AdminLinesDetails(Joined(*assignments), options->admin_lines), {}, options->check, options->force,
      {}};
  request.admin_lines = options->admin_lines;
  SetTrial(request, *options);
  request.run = [assignments = *assignments, admin_lines = options->admin_lines](
                    const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
    api::ChangeOptions with = o;
    with.admin_lines = admin_lines;
    return api::Set(root, assignments, with, w);
  };
  return Start(call, self, ret, std::move(request));
}

int UnsetMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  auto keys = ReadStrings(call);
  if (!keys) return SetError(ret, keys.error());
  auto options = ReadOptions(call, {kOptionForce, kOptionCheck, kOptionAdminLines, kOptionTrial});
  if (!options) return SetError(ret, options.error());
  Request request{
      kActionSet, AdminLinesDetails(Joined(*keys), options->admin_lines), {}, options->check, options->force, {}};
  request.admin_lines = options->admin_lines;
  SetTrial(request, *options);
  request.run = [keys = *keys, admin_lines = options->admin_lines](const sys::Root& root, const api::ChangeOptions& o,
                                                                   api::Writer& w) {
    api::ChangeOptions with = o;
    with.admin_lines = admin_lines;
    return api::Unset(root, keys, with, w);
  };
  return Start(call, self, ret, std::move(request));
}

int RevertMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  const char* id_raw = nullptr;
  if (int r = sd_bus_message_read(call, "s", &id_raw); r < 0) return r;
  std::string id(id_raw);
  Request request{kActionRevert, {{"transaction", id.empty() ? "last" : id}}, {}, false, false, {}};
  request.run = [id](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
    return api::Revert(root, id, o, w);
  };
  return Start(call, self, ret, std::move(request));
}

int ResetMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  Request request{kActionRevert, {{"transaction", "all"}}, {}, false, false, {}};
  request.run = [](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
    return api::Reset(root, o, w);
  };
  return Start(call, self, ret, std::move(request));
}

// Writes back the runtime attributes rocmtune keeps set that a reboot, GPU reset or resume undid
// (`rocmtunectl reapply [CARD]`): the values of transactions already authorized, so the set
// action, with the card as its detail ("" is every GPU).
int ReapplyMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  const char* card_raw = nullptr;
  if (int r = sd_bus_message_read(call, "s", &card_raw); r < 0) return r;
  std::string card(card_raw);
  // A DRM card (cardN) or a PCI address, as rocmtunectl takes it (api::IsReapplyCard).
  if (!api::IsReapplyCard(card))
    return SetError(ret, Error{ErrorCode::kInvalidArgument, 0,
                               fmt::format("Reapply: '{}' is not a card: give cardN or a PCI address, or \"\" for "
                                           "every GPU",
                                           card.substr(0, api::kMaxReapplyCard))});
  Request request{kActionSet, {{"reapply", card.empty() ? "all" : card}}, {}, false, false, {}};
  request.run = [card](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
    return api::Reapply(root, card, o, w);
  };
  return Start(call, self, ret, std::move(request));
}

// `rocmtunectl trial cancel`: a prepared trial's entry and switch removed (or a failed one
// acknowledged); undoing a change not yet made, so the revert action.
int CancelTrialMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  Request request{kActionRevert, {{"transaction", "trial"}}, {}, false, false, {}};
  request.run = [](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
    return api::CancelTrial(root, o, w);
  };
  return Start(call, self, ret, std::move(request));
}

}  // namespace rocmtune::daemon
