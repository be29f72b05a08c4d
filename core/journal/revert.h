// Plans that undo: `revert ID` (one transaction's changes back to their `before`) and the
// inverse of a regenerator. Computing them reads the root and never writes.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "journal/journal.h"
#include "plan/plan.h"
#include "sys/root.h"

namespace rocmtune::journal {

// grubby --args=X <-> --remove-args=X, kernelstub -a X <-> -d X; every other regenerator rebuilds
// from the files, so running it again after the files are restored undoes it.
std::vector<std::string> InverseRegenerator(const std::vector<std::string>& argv);

// Does a runtime attribute at `path`, reading `raw`, hold `written` (a value in the form it was
// written: a profile's index, a word with its newline)? Only its codec knows, and the codecs live
// above this layer: the caller passes them in. Without one, bytes are compared.
using AttributeHolds = std::function<bool(std::string_view path, std::string_view raw, std::string_view written)>;

// The plan that puts back what `txn` changed. A file that no longer holds what `txn` left
// there was edited since (by someone else or a later transaction): that is a conflict, listed
// in plan.conflicts and left out of the ops unless `force`. An attribute that already holds its
// value before (`holds`) is left alone.
plan::Plan RevertPlan(const sys::Root& root, const std::vector<Transaction>& txns, const Transaction& txn, bool force,
                      const AttributeHolds& holds = {});

}  // namespace rocmtune::journal
