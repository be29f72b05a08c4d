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

// `revert last`: the newest committed transaction that is not a revert and not reverted.
const Transaction* LastRevertible(const std::vector<Transaction>& txns);

// What rocmtune's committed transactions last left at `path`: nullopt when rocmtune never
// wrote it; a nullopt inside when it last removed it.
std::optional<std::optional<std::string>> LastWritten(const std::vector<Transaction>& txns, std::string_view path);

// Whether an owned file's `current` content is drift: not what rocmtune last left there, or
// present although rocmtune never wrote it.
bool IsDrift(const std::vector<Transaction>& txns, std::string_view path, const std::optional<std::string>& current);

// Directories rocmtune's committed transactions created and have not removed since.
std::vector<std::string> CreatedDirs(const std::vector<Transaction>& txns);

// The newest apply still in effect (not reverted, not followed by a reset); nullptr when none.
const Transaction* ActiveApply(const std::vector<Transaction>& txns);

// Its profile's name; empty when none.
std::string ActiveProfile(const std::vector<Transaction>& txns);

}  // namespace rocmtune::journal
