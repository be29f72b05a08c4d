// Undoes a transaction that did not commit: every file back to its `before` (only where it
// still holds the transaction's `before` or `after`: anything else is someone else's and is
// left alone and reported), attributes back to their recorded value, directories the
// transaction created removed when empty, regenerators run again on the live root. Safe to
// run twice: a crash during rollback is recovered by rolling back again.
// Every step is first checked by the allow-list (UndoOp, CheckCreatedDir): the journal is a file
// on disk, and a step it asks for that no plan could contain is refused, reported and skipped.
#pragma once

#include <string>
#include <vector>

#include "detect/inventory.h"
#include "helper/file_writer.h"
#include "helper/journal_writer.h"
#include "journal/journal.h"

namespace rocmtune::helper {

struct RollbackReport {
  // I/O errors: the rollback record is not written, and the next recovery tries again.
  std::vector<std::string> failures;
  // Steps not taken, for good: content that is neither ours nor the original, and steps the
  // allow-list refuses. The transaction still counts as rolled back; these are in its record.
  std::vector<std::string> left;
};

RollbackReport RollBack(const sys::Root& root, const detect::Inventory& inventory, FileWriter& writer,
                        JournalWriter& journal, const journal::Transaction& txn, std::string_view reason);

}  // namespace rocmtune::helper
