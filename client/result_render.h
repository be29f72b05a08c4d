// rocmtune.result.v1 for people: the plan (what would be / is being written), then the outcome.
// The local path shows the plan before the helper writes; the daemon path shows both at the end.
#pragma once

#include "client/document.h"
#include "client/verbs.h"

namespace rocmtune::client {

void PrintPlan(const Doc& result, const Args& args);
void PrintOutcome(const Doc& result, const Args& args);

}  // namespace rocmtune::client
