// The changing requests — apply, set, unset, revert, reset — from arguments to the result
// document (rocmtune.result.v1): load the system (rolling back an interrupted transaction
// first), plan, add drift, refuse or hand the plan to the writer, read its reply.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "api/events.h"
#include "api/result_json.h"
#include "api/system.h"
#include "api/writer.h"
#include "plan/plan.h"
#include "plan/trial_state.h"

namespace rocmtune::api {

// How a change ended; front ends map it to their exit code or D-Bus error.
enum class ChangeStatus { kOk, kRefused, kDrift, kNotAuthorized, kFailed };

struct ChangeReport;

struct ChangeOptions {
  bool check = false;  // plan only
  bool force = false;  // overwrite drift; apply a profile that does not fit the machine
  // Called once the plan is complete, before anything is written (a front end shows it then:
  // regenerating an initramfs can take a minute).
  std::function<void(const ChangeReport&)> on_planned;
  // Who asked, when the front end knows (the daemon: the bus caller); journal entries carry it.
  std::optional<uint32_t> caller_uid = std::nullopt;
  // Where the change's events go (api/events.h): applied, reverted, reset, refused, drift,
  // recovered, failed; none for a check. Tests collect them instead.
  std::function<void(const Event&)> on_event = LogEvent;
  // set/unset: also comment out the admin's lines that set the keys (`--admin-lines`,
  // knobs/admin_lines.h); journaled, so revert and reset put them back.
  bool admin_lines = false;
  // apply/set/unset: try the boot-affecting part of the change in one boot first (api/trial.h):
  // the plan writes only a one-shot trial entry, its switch and the trial's state.
  bool trial = false;
  // Tests only: prepare a trial on a --root tree too (front ends plan it only there, `--check`).
  bool trial_on_tree = false;
  // The trial's id (8 lowercase hex digits); empty: a new random one. rocmtuned plans a request
  // for polkit, then runs it: both must be the same trial.
  std::string trial_id = {};
  // The commit of this confirmed trial (api::CommitTrial): the change also removes the trial
  // entry and writes the trial's state committed, in the same transaction.
  const plan::TrialState* trial_commit = nullptr;
};

struct ChangeReport {
  plan::Plan plan;
  Outcome outcome;
  ChangeStatus status = ChangeStatus::kOk;
  // The plan may not run: refused, or drift without --force.
  bool blocked = false;
  std::vector<std::string> skipped;  // apply: "ITEM-ID: why it is not applied here"
  // The keys the change concerns when the intent does not list them (revert: the undone
  // transaction's; reset: every key reset), for its journal entries. KEY=VALUE counts as KEY.
  std::vector<std::string> knobs;
};

// Errors are requests that cannot be planned: kNotFound (no such profile or transaction),
// kInvalidArgument (a malformed key or assignment, an unknown --with item), or a root or
// journal that cannot be read. A refused plan is a report, not an error.
Result<ChangeReport> Apply(const sys::Root& root, const std::string& name, const std::vector<std::string>& with,
                           const ChangeOptions& options, Writer& writer);
Result<ChangeReport> Set(const sys::Root& root, const std::vector<std::string>& assignments,
                         const ChangeOptions& options, Writer& writer);
Result<ChangeReport> Unset(const sys::Root& root, const std::vector<std::string>& keys, const ChangeOptions& options,
                           Writer& writer);
// `id`: a transaction id, "last" or empty (the last one still in effect).
Result<ChangeReport> Revert(const sys::Root& root, const std::string& id, const ChangeOptions& options, Writer& writer);
Result<ChangeReport> Reset(const sys::Root& root, const ChangeOptions& options, Writer& writer);

nlohmann::ordered_json ResultJson(const ChangeReport& report);

// Drift, decided here for every request: an owned file among the plan's ops that no longer
// holds what rocmtune last wrote there becomes a conflict.
void AddDriftConflicts(const System& system, plan::Plan& plan);

}  // namespace rocmtune::api
