// `history`: rocmtune's transactions, each with what was asked and whether it is in effect.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/system.h"

namespace rocmtune::api {

struct HistoryEntry {
  const journal::Transaction* txn = nullptr;  // into the System's journal
  std::string what;                           // "apply rdna1-safe --with x", "set amdgpu.noretry=0", "revert ID"
  std::string state;                          // "in effect", "reverted", or the journal state
  bool reverted = false;
};

struct HistoryReport {
  std::string active_profile;  // empty when none
  std::vector<HistoryEntry> entries;
};

// Points into `system`: keep it alive while the report is used.
HistoryReport History(const System& system);

nlohmann::ordered_json HistoryJson(const HistoryReport& report);

}  // namespace rocmtune::api
