// Plans that undo: `revert ID` (one transaction's changes back to their `before`) and the
// inverse of a regenerator. Computing them reads the root and never writes.
#pragma once

#include <string>
#include <vector>

#include "journal/journal.h"
#include "plan/plan.h"
#include "sys/root.h"

namespace rocmtune::journal {

// grubby --args=X <-> --remove-args=X; every other regenerator rebuilds from the files, so
// running it again after the files are restored undoes it.
std::vector<std::string> InverseRegenerator(const std::vector<std::string>& argv);

// The plan that puts back what `txn` changed. A file that no longer holds what `txn` left
// there was edited since (by someone else or a later transaction): that is a conflict, listed
// in plan.conflicts and left out of the ops unless `force`.
plan::Plan RevertPlan(const sys::Root& root, const std::vector<Transaction>& txns, const Transaction& txn, bool force);

}  // namespace rocmtune::journal
