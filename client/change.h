// The one path every changing verb takes (apply, set, unset, revert, reset): show the plan,
// stop at refusals and drift, hand the rest to rocmtune-helper, report rocmtune.result.v1.
#pragma once

#include "client/context.h"
#include "client/knob_context.h"
#include "journal/journal.h"
#include "plan/plan.h"

namespace rocmtune::client {

struct ChangeOptions {
  bool check = false;  // plan only
  bool diff = false;   // print unified diffs
  bool force = false;  // overwrite drift
};

// LoadSystem for a changing verb. An interrupted transaction in the journal (a crash, a power
// cut) is rolled back first by the helper, so the plan is made against what was there before
// it; `notes` says so. With --check, or without the rights to change the root, nothing is run:
// `notes` says what will happen.
std::optional<LoadedSystem> LoadSystemForChange(const Context& ctx, const ChangeOptions& options,
                                                std::vector<plan::Message>& notes);

// Adds drift of rocmtune's own files among the plan's ops to plan.conflicts.
void AddDriftConflicts(const sys::Root& root, const std::vector<journal::Transaction>& txns, plan::Plan& plan);

int RunChange(const Context& ctx, plan::Plan plan, const ChangeOptions& options);

}  // namespace rocmtune::client
