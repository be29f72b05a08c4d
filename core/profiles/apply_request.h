// `apply PROFILE`: from a profile's desired state to the knob request and the intent the
// journal records. Applying a profile replaces the active one (as `tuned-adm profile` does):
// what the previous profile set and the new one does not mention is unset, unless someone
// changed it since (a later `set` of the same key is the admin's, not the profile's).
#pragma once

#include <string>
#include <vector>

#include "journal/journal.h"
#include "knobs/backend.h"
#include "plan/plan.h"
#include "planner/planner.h"
#include "profiles/desired.h"

namespace rocmtune::profiles {

struct ApplyRequest {
  plan::Request request;
  plan::Intent intent;                  // {"apply", name, args}: args "KEY=VALUE" (set) and "KEY" (unset)
  std::vector<plan::Message> replaced;  // one per key of the previous profile this apply unsets
};

// The keys and values a transaction's apply intent set (args of the form KEY=VALUE).
std::vector<knobs::Assignment> AppliedAssignments(const journal::Transaction& apply);

// `previous`: the active apply (journal::ActiveApply), or nullptr. A reset profile
// (`desired.reset`) unsets every key rocmtune configured.
ApplyRequest BuildApplyRequest(const knobs::KnobContext& ctx, const std::string& profile, const Desired& desired,
                               const journal::Transaction* previous);

}  // namespace rocmtune::profiles
