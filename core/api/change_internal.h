// Shared by change.cc and change_requests.cc; not part of the api.
#pragma once

#include "api/change.h"
#include "journal/journal.h"

namespace rocmtune::api {

// LoadSystem for a change: an interrupted transaction in the journal (a crash, a power cut) is
// rolled back first through the writer, so the plan is made against what was there before it;
// `notes` says so. With --check, or without the right to change the root, nothing is run:
// `notes` says what will happen.
Result<System> PrepareChange(const sys::Root& root, const ChangeOptions& options, Writer& writer,
                             std::vector<plan::Message>& notes);

// Decides whether the plan may run (refusals, drift), shows it (on_planned), and runs it.
ChangeReport CarryOut(const sys::Root& root, ChangeReport report, const ChangeOptions& options, Writer& writer);

// The journal entries of a finished change (nothing for a check): drift, refused, failed, and
// applied/reverted/reset for a committed transaction, to options.on_event.
void EmitChangeEvents(const sys::Root& root, const ChangeReport& report, const ChangeOptions& options);

// One `recovered` entry per rolled-back transaction; `journal` (read before the rollback) says
// what each one was.
void EmitRecovered(const sys::Root& root, const std::vector<std::string>& ids,
                   const std::vector<journal::Transaction>& journal, const ChangeOptions& options);

}  // namespace rocmtune::api
