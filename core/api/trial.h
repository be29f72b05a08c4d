// Trial boots (`apply|set|unset ... --trial`): a change whose boot-affecting part is booted once
// from a one-shot entry before anything permanent is written, and kept only when the GPUs come
// up healthy in that boot. The per-setup part (the entry and its switch) is boot::Setup's
// PlanTrial/PlanTrialCleanup; this is the trial's life: prepare, the boot's check, the commit, the
// recovery after a boot without the trial, cancel. Every step is one journaled transaction of
// the helper that writes the state file (plan/trial_state.h) with whatever else the step needs,
// so `history` shows it and a crash at any point is rolled back like any change.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "api/change.h"
#include "plan/trial_state.h"

namespace rocmtune::api {

// The trial's state now; nullopt when there has never been one. An unreadable or malformed
// file is an error (kInvalidData naming it).
Result<std::optional<plan::TrialState>> ReadTrial(const sys::Root& root);

// `rocmtunectl trial --json`: the state document (rocmtune.trial.v1), or {"schema", "state":
// "none"} when there is no trial.
nlohmann::ordered_json TrialJson(const std::optional<plan::TrialState>& state);

// /etc/rocmtune/trial.toml (root-owned, like admin profiles): `check = ["argv", ...]` run in the
// trial boot after rocmtune's own checks, `timeout = SECONDS` (default 60, at most 600).
struct TrialAdminCheck {
  std::vector<std::string> argv;
  std::chrono::seconds timeout{60};
};
// nullopt when the file is absent; an error for a file that is not as described.
Result<std::optional<TrialAdminCheck>> ReadTrialAdminCheck(const sys::Root& root);

// What the front end gathers for the check that the core cannot: this boot's kernel log, and how
// the admin's command is run.
struct TrialCheckInputs {
  std::optional<std::string> kernel_log;  // nullopt: not read (said in `seen`, not a failure)
  // Runs the admin's check and says what failed ("" when it passed). CheckTrial reads
  // /etc/rocmtune/trial.toml and calls this only when a trial is pending and this boot carries its
  // token: a command that runs as root runs for nothing else. Unset: a configured check fails.
  std::function<std::string(const TrialAdminCheck&)> run_admin_check;
};

// `trial check --boot` (rocmtune-trial-check.service, in the trial boot): state booted, then the
// checks, then confirmed, or failed with what was seen and the trial entry removed. The report's
// status is kFailed when the check failed (the unit fails, boot-complete.target is not reached).
Result<ChangeReport> CheckTrial(const sys::Root& root, const TrialCheckInputs& inputs, const ChangeOptions& options,
                                Writer& writer);

// `trial commit --boot` (rocmtune-trial-commit.service, after boot-complete.target): the stored
// request planned and applied as an ordinary transaction that also removes the trial entry and
// writes the state committed, all or nothing.
Result<ChangeReport> CommitTrial(const sys::Root& root, const ChangeOptions& options, Writer& writer);

// `trial recover --boot` (rocmtune-recover.service, every boot): a pending trial on a boot whose
// command line lacks its token means the trial boot panicked, hung or was never booted: failed
// with what was seen, entry removed. Nothing to do otherwise (report with an empty plan).
Result<ChangeReport> RecoverTrial(const sys::Root& root, const ChangeOptions& options, Writer& writer);

// `trial cancel`: a pending trial's entry and switch removed, state cancelled; a failed one is
// acknowledged (cancelled) so status no longer shows it.
Result<ChangeReport> CancelTrial(const sys::Root& root, const ChangeOptions& options, Writer& writer);

}  // namespace rocmtune::api
