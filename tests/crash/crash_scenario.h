// A crash scenario: one plan on one tree, with the two states a crash may leave it in.
// Run() enumerates the helper's steps on that plan, then at every step kills it (and
// recovers) or makes the step fail with each errno, and checks the tree and the journal.
#pragma once

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "helper_run.h"
#include "plan/plan.h"
#include "tree.h"

namespace rocmtune::crash {

// The two helper builds under test (CMake passes their paths).
inline const std::string kRealHelper = ROCMTUNE_HELPER;
inline const std::string kFaultHelper = ROCMTUNE_FAULT_HELPER;

struct Scenario {
  std::string name;                   // "apply mi210x8"
  std::string base;                   // the "before" tree; every run works on a fresh copy of it
  std::string plan_json;              // what the helper gets on stdin
  std::vector<std::string> in_place;  // what runs write in place (see FreshCopy)
  Tree before, after;                 // after: what the real helper leaves
  std::set<std::string> expected_steps;
  uint64_t first_txn = 1;  // the scenario's transaction is the first numbered from here
  // The plan for a tree already in the "after" state (a follow-up apply on it must work).
  std::function<plan::Plan(const std::string& root)> replan;
};

struct Counts {
  size_t steps = 0;
  size_t killed = 0, recovered = 0, left_before = 0, left_after = 0;
  size_t recovery_steps = 0, recovery_points_run = 0, recovery_killed_ok = 0, recovery_failed_ok = 0;
  std::vector<std::string> recovery_points;  // "16 after a kill at step 57"
  size_t injections = 0, injections_ok = 0;
};

// `scratch` holds the runs' copies (each removed after its run).
Counts RunScenario(const Scenario& scenario, const std::string& scratch);
std::string Summary(const Scenario& scenario, const Counts& counts);

// Plans, built in-process the way rocmtunectl builds them.
plan::Plan PlanSet(const std::string& root, const std::vector<std::string>& assignments);
// `set ASSIGNMENTS... --admin-lines` and `unset KEYS... --admin-lines` in one request: the
// admin's lines that set any of these keys commented out too.
plan::Plan PlanAdminLines(const std::string& root, const std::vector<std::string>& assignments,
                          const std::vector<std::string>& unset);
plan::Plan PlanRevert(const std::string& root, const std::string& id);
// `apply PROFILE [--with ID...]` as rocmtunectl plans it (no profile active before).
plan::Plan PlanProfile(const std::string& root, const std::string& profile, const std::vector<std::string>& with);
std::string PlanText(const plan::Plan& plan);
// The same plan for another directory (a copy of the tree it was made on): the helper runs a
// plan only on the root it names.
std::string PlanFor(const std::string& plan_json, const std::string& root_dir);
// The journal's directory and the plan's sysfs attributes (resolved): written in place.
std::vector<std::string> InPlacePaths(const std::string& base, const plan::Plan& plan);

}  // namespace rocmtune::crash
