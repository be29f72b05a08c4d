// Undoes a transaction that did not commit: every file back to its `before` (only where it
// still holds the transaction's `before` or `after`: anything else is someone else's and is
// left alone and reported), attributes back to their recorded value, directories the
// transaction created removed when empty, regenerators run again on the live root. Safe to
// run twice: a crash during rollback is recovered by rolling back again.
#pragma once

#include <string>
#include <vector>

#include "helper/file_writer.h"
#include "helper/journal_writer.h"
#include "journal/journal.h"

namespace rocmtune::helper {

// Problems that could not be undone, one message each (empty: everything was restored).
// Appends the rollback record only when nothing failed.
std::vector<std::string> RollBack(const sys::Root& root, FileWriter& writer, JournalWriter& journal,
                                  const journal::Transaction& txn, std::string_view reason);

}  // namespace rocmtune::helper
