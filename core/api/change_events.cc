// Which journal entries a finished change makes (api/events.h): decided from the report alone,
// so every front end logs the same change the same way.
#include <algorithm>
#include <optional>

#include "api/change_internal.h"
#include "knobs/knob_key.h"

namespace rocmtune::api {
namespace {

// "amdgpu.noretry=0" and "amdgpu.noretry" both concern the key amdgpu.noretry; the value stays
// out of the journal (it is in rocmtune's own journal and history).
std::vector<std::string> KeysOf(const std::vector<std::string>& args) {
  std::vector<std::string> keys;
  keys.reserve(args.size());
  for (const std::string& a : args) keys.push_back(a.substr(0, a.find('=')));
  return keys;
}

std::vector<std::string> CardsOf(const std::vector<std::string>& keys) {
  std::vector<std::string> cards;
  for (const std::string& k : keys) {
    auto key = knobs::ParseKnobKey(k);
    if (!key || key->kind != knobs::KnobKind::kSysfs) continue;
    if (std::find(cards.begin(), cards.end(), key->target) == cards.end()) cards.push_back(key->target);
  }
  return cards;
}

std::vector<std::string> Texts(const std::vector<plan::Message>& messages) {
  std::vector<std::string> out;
  out.reserve(messages.size());
  for (const plan::Message& m : messages) out.push_back(m.message);
  return out;
}

void AddUnique(std::vector<std::string>& to, const std::vector<std::string>& items) {
  for (const std::string& i : items)
    if (std::find(to.begin(), to.end(), i) == to.end()) to.push_back(i);
}

// A trial step is a transaction of the verb "trial" whose first arg names the step (api/trial.h).
std::optional<EventKind> CommittedKind(const plan::Intent& intent) {
  const std::string_view verb = intent.verb;
  if (verb == "trial") {
    std::string_view step = intent.args.empty() ? std::string_view() : std::string_view(intent.args.front());
    if (step == "prepare") return EventKind::kTrialPrepared;
    if (step == "confirm") return EventKind::kTrialConfirmed;
    if (step == "fail") return EventKind::kTrialFailed;
    if (step == "cancel") return EventKind::kTrialCancelled;
    return std::nullopt;  // "booted": the check's own entry follows
  }
  if (verb == "revert") return EventKind::kReverted;
  if (verb == "reset") return EventKind::kReset;
  if (verb == "reapply") return EventKind::kReapplied;  // api::Reapply: boot, hotplug, GPU reset
  return EventKind::kApplied;                           // apply, set, unset
}

Event Base(const sys::Root& root, const plan::Intent& intent, const std::vector<std::string>& knobs,
           const ChangeOptions& options) {
  Event e;
  e.verb = intent.verb;
  e.profile = intent.profile;
  e.reverts = intent.reverts;
  // A reapply's args name the card it was asked for (api::Reapply), not keys.
  const bool reapply = intent.verb == "reapply";
  const bool trial = intent.verb == "trial";
  // A trial step's args are the step, the trial's id, then the request's keys as typed.
  if (trial && intent.args.size() > 1) e.trial = intent.args[1];
  std::vector<std::string> args = intent.args;
  if (trial) args.erase(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(2, args.size())));
  e.knobs = KeysOf(!knobs.empty() ? knobs : reapply ? std::vector<std::string>{} : args);
  e.cards = CardsOf(e.knobs);
  if (e.cards.empty() && reapply) e.cards = intent.args;
  e.root = EventRoot(root);
  e.caller_uid = options.caller_uid;
  return e;
}

}  // namespace

void EmitChangeEvents(const sys::Root& root, const ChangeReport& report, const ChangeOptions& options) {
  if (options.check || !options.on_event) return;
  const plan::Plan& plan = report.plan;
  const Outcome& outcome = report.outcome;
  const std::string transaction = outcome.changed ? outcome.transaction.value_or("") : "";
  auto emit = [&](EventKind kind, std::vector<std::string> reasons, const std::string& txn) {
    Event e = Base(root, plan.intent, report.knobs, options);
    e.kind = kind;
    e.reasons = std::move(reasons);
    e.transaction = txn;
    options.on_event(e);
  };
  // Drift the plan found (it blocks, or --force overwrites it), or the helper found at write time.
  std::vector<std::string> conflicts = Texts(plan.conflicts);
  if (conflicts.empty() && report.status == ChangeStatus::kDrift) conflicts = outcome.errors;
  if (!conflicts.empty()) emit(EventKind::kDrift, conflicts, transaction);

  const bool refused = report.blocked || report.status == ChangeStatus::kRefused ||
                       report.status == ChangeStatus::kDrift || report.status == ChangeStatus::kNotAuthorized;
  if (refused) {
    std::vector<std::string> reasons = Texts(plan.refused);
    if (report.status == ChangeStatus::kDrift) AddUnique(reasons, conflicts);
    AddUnique(reasons, outcome.errors);
    emit(EventKind::kRefused, std::move(reasons), "");
  }
  if (report.status == ChangeStatus::kFailed) emit(EventKind::kFailed, outcome.errors, "");
  if (outcome.changed)
    if (auto kind = CommittedKind(plan.intent))
      emit(*kind, *kind == EventKind::kTrialFailed ? Texts(plan.warnings) : std::vector<std::string>{}, transaction);
  if (outcome.changed && options.trial_commit) {
    Event e = Base(root, plan.intent, report.knobs, options);
    e.kind = EventKind::kTrialCommitted;
    e.trial = options.trial_commit->id;
    e.transaction = transaction;
    options.on_event(e);
  }
}

void EmitRecovered(const sys::Root& root, const std::vector<std::string>& ids,
                   const std::vector<journal::Transaction>& journal, const ChangeOptions& options) {
  if (!options.on_event) return;
  for (const std::string& id : ids) {
    auto txn = std::find_if(journal.begin(), journal.end(), [&](const journal::Transaction& t) { return t.id == id; });
    Event e = Base(root, txn != journal.end() ? txn->intent : plan::Intent{}, {}, options);
    e.kind = EventKind::kRecovered;
    e.transaction = id;
    options.on_event(e);
  }
}

}  // namespace rocmtune::api
