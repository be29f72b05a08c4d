#include "helper/step_hook.h"

namespace rocmtune::helper {

std::string_view StepName(Step step) {
  switch (step) {
    case Step::kJournalCreate: return "journal-create";
    case Step::kJournalAppend: return "journal-append";
    case Step::kJournalSync: return "journal-sync";
    case Step::kMkdir: return "mkdir";
    case Step::kRmdir: return "rmdir";
    case Step::kTempCreate: return "temp-create";
    case Step::kTempWrite: return "temp-write";
    case Step::kTempSync: return "temp-sync";
    case Step::kRename: return "rename";
    case Step::kUnlink: return "unlink";
    case Step::kDirSync: return "dir-sync";
    case Step::kSysfsWrite: return "sysfs-write";
    case Step::kRegenerate: return "regenerate";
  }
  return "?";
}

}  // namespace rocmtune::helper
