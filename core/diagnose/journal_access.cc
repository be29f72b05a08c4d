#include "diagnose/journal_access.h"

#include <cerrno>

#include <fmt/format.h>

#include "detect/finding_ids.h"
#include "journal/journal.h"

namespace rocmtune::diagnose {

bool JournalNotPermitted(const Error& error) { return error.errno_value == EACCES || error.errno_value == EPERM; }

std::string JournalUnknownNote(const Error& error) {
  return fmt::format(
      "the active profile and rocmtune's pending work are unknown to this user: the journal is readable by root "
      "and group rocmtune only ({}); rocmtuned answers them when it runs, or run as root",
      error.message);
}

detect::Finding JournalUnreadableFinding(const Error& error) {
  if (JournalNotPermitted(error))
    return {.id = detect::FindingName(detect::FindingId::kJournalNotPermitted),
            .severity = detect::Severity::kInfo,
            .subject = std::string(journal::kJournalDir),
            .what = JournalUnknownNote(error)};
  return {
      .id = detect::FindingName(detect::FindingId::kJournalUnreadable),
      .severity = detect::Severity::kError,
      .subject = std::string(journal::kJournalDir),
      .what = fmt::format("the journal cannot be read, so the active profile and rocmtune's settings are unknown: {}",
                          error.message)};
}

}  // namespace rocmtune::diagnose
