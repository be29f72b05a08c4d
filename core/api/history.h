// `history`: rocmtune's transactions, each with what was asked and whether it is in effect.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "api/system.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::api {

struct HistoryEntry {
  const journal::Transaction* txn = nullptr;  // into the System's journal
  std::string what;                           // "apply rdna1-safe --with x", "set amdgpu.noretry=0", "revert ID"
  // "in effect", "reverted by ID", "superseded by ID (reset)", or the journal state
  std::string state;
  bool reverted = false;
  bool in_effect = false;     // journal::Effects
  std::string reverted_by;    // the revert that undid it
  std::string superseded_by;  // the reset or apply that replaced it
};

struct HistoryReport {
  std::string active_profile;  // empty when none
  std::vector<HistoryEntry> entries;
};

// Points into `system`: keep it alive while the report is used.
HistoryReport History(const System& system);

nlohmann::ordered_json HistoryJson(const HistoryReport& report);

// The journal read for a front end's one question, so that no front end reads it itself:
// the active profile ("" for none; rocmtuned's ActiveProfile property), failing as the journal
// read does (a user its permissions keep out) ...
Result<std::string> ReadActiveProfile(const sys::Root& root);
// ... and whether a transaction was begun and never finished (rocmtuned lets such a change
// through to roll it back even when its plan writes nothing); false when it cannot be read.
bool HasIncomplete(const sys::Root& root);

}  // namespace rocmtune::api
