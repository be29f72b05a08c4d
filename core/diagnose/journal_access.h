// The journal (var/lib/rocmtune/journal, 0640 root:rocmtune: its records hold whole files as they
// were before each change) is not readable by every user. For the read verbs a user runs
// (`status`, `profiles`, `show`, `doctor`, `snapshot`), that is a normal state, not a fault:
// what only the journal tells (the active profile, rocmtune's pending work) is unknown to them,
// said once in a note, while rocmtuned (which runs as user rocmtune) answers it over the bus.
// A journal that cannot be read for any other reason (damaged, an I/O error) stays an error.
#pragma once

#include <string>

#include "detect/finding.h"
#include "util/result.h"

namespace rocmtune::diagnose {

// The journal could not be read because this process may not (EACCES, EPERM).
bool JournalNotPermitted(const Error& error);

// What a reader that may not read the journal is told: what is unknown and who can answer it.
std::string JournalUnknownNote(const Error& error);

// status's finding for a journal that cannot be read: info `journal.not-permitted` when this
// user may not read it, error `journal.unreadable` otherwise.
detect::Finding JournalUnreadableFinding(const Error& error);

}  // namespace rocmtune::diagnose
