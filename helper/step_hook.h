// Every step of a transaction that touches the disk goes through a StepHook first. The
// shipped helper uses NoHooks; the crash tests build the same executor with a hook that
// counts the steps and, at step N, kills the process or fails the step with an errno
// (tests/crash/). That makes every point where a crash or an I/O error can strike enumerable.
#pragma once

#include <string_view>

#include "util/result.h"

namespace rocmtune::helper {

enum class Step {
  kJournalCreate,  // create a transaction's journal file
  kJournalAppend,  // write one record
  kJournalSync,    // fsync it
  kMkdir,
  kRmdir,
  kTempCreate,  // the new content's temporary file, beside the target
  kTempWrite,
  kTempSync,
  kRename,  // temporary -> target
  kUnlink,
  kDirSync,  // fsync the directory after rename/unlink/mkdir
  kSysfsWrite,
  kRegenerate,
};

std::string_view StepName(Step step);

class StepHook {
 public:
  virtual ~StepHook() = default;
  // Called before the step; an error is treated exactly as if the step itself failed.
  virtual Result<void> Before(Step step, std::string_view path) = 0;
};

class NoHooks final : public StepHook {
 public:
  Result<void> Before(Step, std::string_view) override { return {}; }
};

}  // namespace rocmtune::helper
