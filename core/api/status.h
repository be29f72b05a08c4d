// `status`: what rocmtune knows about this machine — the inventory, the state of each configured
// or watched knob, every finding of the assessment and each GPU's compute verdict. The CLI's
// table and its --json, the daemon's Describe() and the snapshot all come from this one report,
// which is the assessment `doctor` and `check-compute` render too (diagnose/assess.h).
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "detect/inventory.h"
#include "detect/live_facts.h"
#include "diagnose/assess.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::api {

using StatusReport = diagnose::Assessment;

struct StatusOptions {
  // Ask rocm-smi-lib on the live root (a child process, up to its timeout). Off for callers that
  // use the values for nothing (a property read).
  bool live_facts = true;
  // Facts read already (rocmtuned's, detect/live_facts_cache.h) instead of asking now.
  const std::vector<detect::LiveFacts>* known_live = nullptr;
  // A person runs this (diagnose::AssessOptions::caller); rocmtuned answers for no one user.
  bool caller = true;
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
