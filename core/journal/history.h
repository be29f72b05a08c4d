// What the journal means: which transactions are in effect, what `revert last` undoes, what
// rocmtune last wrote to a file (anything else found there is drift), the active profile.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "journal/journal.h"

namespace rocmtune::journal {

const Transaction* Find(const std::vector<Transaction>& txns, std::string_view id);

// A committed transaction is reverted when a committed revert of it is itself not reverted.
bool IsReverted(const std::vector<Transaction>& txns, const Transaction& txn);

// Whether a transaction is in effect, and if not, why. A committed transaction is in effect until
//   - a revert of it (itself in effect... or at least not reverted) undoes it: reverted_by;
//   - a later reset puts everything before it back to stock: superseded_by the reset;
//   - for an apply, a later apply replaces its profile (what the old profile set and the new one
//     does not is unset by the new one): superseded_by that apply.
// A revert is in effect as the undo it is (never the target of `revert last`; `revert ID` of it
// redoes). A `set`/`unset` is not superseded by a later one of the same key: the later row shows
// the newer value. Reverting the reset or the replacing apply puts the earlier ones back in effect.
struct Effect {
  bool in_effect = false;
  std::string reverted_by;
  std::string superseded_by;
};

// One per transaction of `txns`, in the same order.
std::vector<Effect> Effects(const std::vector<Transaction>& txns);

// `revert last`: the newest transaction in effect that is not a revert or a reapply (a reapply
// only puts back what an earlier change set; undoing it would undo nothing the admin asked for).
const Transaction* LastRevertible(const std::vector<Transaction>& txns);

// What rocmtune's committed transactions last left at `path`: nullopt when rocmtune never
// wrote it; a nullopt inside when it last removed it.
std::optional<std::optional<std::string>> LastWritten(const std::vector<Transaction>& txns, std::string_view path);

// Whether an owned file's `current` content is drift: not what rocmtune last left there, or
// present although rocmtune never wrote it.
bool IsDrift(const std::vector<Transaction>& txns, std::string_view path, const std::optional<std::string>& current);

// An owned file's content as the last finished transaction left it: when the newest
// transaction is unfinished (running, or cut short and rolled back next) and wrote exactly
// `current` there, what it found (nullopt: the file was not there); otherwise `current`.
std::optional<std::string> FinishedContent(const std::vector<Transaction>& txns, std::string_view path,
                                           std::string current);

// Directories rocmtune's committed transactions created and have not removed since.
std::vector<std::string> CreatedDirs(const std::vector<Transaction>& txns);

// The newest apply still in effect (Effects); nullptr when none.
const Transaction* ActiveApply(const std::vector<Transaction>& txns);

// Its profile's name; empty when none.
std::string ActiveProfile(const std::vector<Transaction>& txns);

}  // namespace rocmtune::journal
