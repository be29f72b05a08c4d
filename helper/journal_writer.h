// Appends a transaction's records to its journal file, each line written and fsync'd before
// the helper takes the next step (write-ahead: the record of a change precedes the change).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "helper/step_hook.h"
#include "sys/root.h"
#include "sys/unique_fd.h"

namespace rocmtune::helper {

class JournalWriter {
 public:
  // Creates the journal directory if needed and the transaction's file (which must not exist).
  static Result<JournalWriter> Create(const sys::Root& root, StepHook& hook, uint64_t number);
  // Opens an existing transaction's file to append to it; a torn last line is cut off first.
  static Result<JournalWriter> Reopen(const sys::Root& root, StepHook& hook, const std::string& file);

  Result<void> Append(const nlohmann::ordered_json& record);
  // Writes the transaction's contents file (journal.h: the private ops' before/after), root's
  // alone whoever shares the journal, and syncs it and its name: called before the begin record
  // that names those ops, so no record points at contents a crash lost.
  Result<void> WriteContents(const nlohmann::ordered_json& record, uint64_t number);
  const std::string& file() const { return file_; }

 private:
  JournalWriter(const sys::Root& root, StepHook& hook, std::string file, sys::UniqueFd fd)
      : root_(&root), hook_(&hook), file_(std::move(file)), fd_(std::move(fd)) {}

  const sys::Root* root_;
  StepHook* hook_;
  std::string file_;
  sys::UniqueFd fd_;
};

// Creates var/lib/rocmtune/journal (rocmtune's own state, not part of any transaction).
Result<void> EnsureJournalDir(const sys::Root& root, StepHook& hook);

}  // namespace rocmtune::helper
