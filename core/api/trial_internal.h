// Shared by the trial's files (trial.cc, trial_check.cc) and the change path that prepares and
// commits a trial (change_requests.cc); not part of the api.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/change.h"
#include "api/system.h"
#include "plan/trial_state.h"
#include "planner/planner.h"

namespace rocmtune::api {

// RFC 3339 UTC, seconds.
std::string TrialNow();
// The driver bound to the PCI device `pci` ("amdgpu"), "" when none.
std::string BoundDriver(const sys::Root& root, const std::string& pci);
// check-compute's verdict over every GPU: "safe", "unsafe", "no-gpu" or "unknown"; ranked from
// best (0) to worst.
std::string ComputeVerdict(const sys::Root& root, const detect::Inventory& inventory);
int VerdictRank(std::string_view verdict);
// ReadTrial against the journal the change already loaded (System::journal): read once.
Result<std::optional<plan::TrialState>> ReadTrial(const System& system);
// Whether /proc/cmdline carries rocmtune.trial=<id>.
bool TrialTokenOnCmdline(const sys::Root& root, const std::string& id);

// The state written as `phase` with `seen` added (an op of `plan`).
void AddTrialState(const System& system, const plan::TrialState& state, plan::TrialPhase phase,
                   const std::vector<std::string>& seen, plan::Plan& plan);
// The setup's cleanup ops (entry removed, switch cleared) and the state written as `phase`
// with `seen` added.
void AddTrialCleanup(const System& system, const plan::TrialState& state, plan::TrialPhase phase,
                     const std::vector<std::string>& seen, plan::Plan& plan);

// --trial: the planned change `report` becomes its trial (entry, switch, state) or a refusal.
void MakeTrial(const System& system, const plan::Request& request, ChangeReport& report, const ChangeOptions& options);
// The commit of a confirmed trial: the planned change plus the trial's cleanup and its state
// written committed, one transaction.
void AddTrialCommit(const System& system, const plan::TrialState& state, ChangeReport& report);
// reset: a trial that is pending or failed is cancelled with it.
void AddTrialReset(const System& system, plan::Plan& plan);
// Both of the above as the change path calls them, by options.
void FinishTrial(const System& system, const plan::Request& request, ChangeReport& report,
                 const ChangeOptions& options);

}  // namespace rocmtune::api
