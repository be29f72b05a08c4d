// The one path every changing verb takes (apply, set, unset, revert, reset): show the plan,
// stop at refusals and drift, hand the rest to rocmtune-helper, report rocmtune.result.v1.
#pragma once

#include "client/context.h"
#include "journal/journal.h"
#include "plan/plan.h"

namespace rocmtune::client {

struct ChangeOptions {
  bool check = false;  // plan only
  bool diff = false;   // print unified diffs
  bool force = false;  // overwrite drift
};

// Adds drift of rocmtune's own files among the plan's ops to plan.conflicts.
void AddDriftConflicts(const sys::Root& root, const std::vector<journal::Transaction>& txns, plan::Plan& plan);

int RunChange(const Context& ctx, plan::Plan plan, const ChangeOptions& options);

}  // namespace rocmtune::client
