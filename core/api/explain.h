// `explain KEY`: what a knob is, its configured / running / effective value here, where it is
// set, whether it matters on each GPU, and why (sources).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "api/system.h"
#include "knobs/backend.h"

namespace rocmtune::api {

struct ExplainReport {
  knobs::KnobKey key;
  std::string backend;
  knobs::KnobState state;
  std::vector<std::string> about;  // the catalog's description, per-GPU relevance, sources
};

// kInvalidArgument: not a knob key; kUnsupported: a key no backend knows (the message names
// the closest known ones).
Result<ExplainReport> Explain(const System& system, const std::string& key);

nlohmann::ordered_json ExplainJson(const ExplainReport& report);

}  // namespace rocmtune::api
