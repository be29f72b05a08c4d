// Turns a request (set these, unset those) into a validated plan across backends.
#pragma once

#include <vector>

#include "knobs/backend.h"
#include "plan/plan.h"

namespace rocmtune::plan {

struct Request {
  std::vector<knobs::Assignment> set;
  std::vector<knobs::KnobKey> unset;
  // Also comment out the admin's lines that set these keys (`--admin-lines`, knobs/admin_lines.h).
  bool admin_lines = false;
};

// Any refusal leaves the plan without ops: nothing of a refused request may be applied.
Plan PlanRequest(const knobs::KnobContext& ctx, const Request& request);

// `reset`: unset every key rocmtune's own files set, in every backend.
Request ResetRequest(const knobs::KnobContext& ctx);

}  // namespace rocmtune::plan
