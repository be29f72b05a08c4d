// `status`: what rocmtune knows about this machine — the inventory with every finding, and
// the state of each configured or watched knob. The CLI's table and its --json, the daemon's
// Describe() and the snapshot all come from this one report.
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "detect/inventory.h"
#include "detect/live_facts.h"
#include "knobs/backend.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::api {

struct StatusReport {
  detect::Inventory inventory;  // findings include the knobs' (environment, unreadable files)
  std::vector<knobs::KnobState> knobs;
  std::string active_profile;  // the profile of the apply still in effect; empty when none
  // rocm-smi-lib's facts, one per GPU in the inventory's order: only for the live root (a
  // world's files are not the running hardware's), so nothing for --root DIR.
  std::optional<std::vector<detect::LiveFacts>> live;
};

struct StatusOptions {
  // Ask rocm-smi-lib on the live root (a child process, up to its timeout). Off for callers that
  // use neither the values nor doctor's live checks (check-compute, asked before a program starts).
  bool live_facts = true;
  // Facts read already (rocmtuned's, detect/live_facts_cache.h) instead of asking now.
  const std::vector<detect::LiveFacts>* known_live = nullptr;
};

// Fails when the root itself, or its sys/ or proc/, cannot be read (permissions): a tree
// rocmtune cannot see into is not a machine without AMD GPUs.
Result<StatusReport> Status(const sys::Root& root);
// The same with an inventory detected earlier on this root (the daemon keeps one, refreshed by
// udev): the knobs, the journal and every file are read now.
Result<StatusReport> Status(const sys::Root& root, detect::Inventory inventory, const StatusOptions& options = {});

nlohmann::ordered_json StatusJson(const StatusReport& report);

// The rocmtune.status.v1 document of Status(root).
Result<nlohmann::ordered_json> DescribeSystem(const sys::Root& root);
Result<nlohmann::ordered_json> DescribeSystem(const sys::Root& root, detect::Inventory inventory,
                                              const StatusOptions& options = {});

}  // namespace rocmtune::api
