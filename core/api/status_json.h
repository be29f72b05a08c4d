// The one builder of the status document (schema rocmtune.status.v1): `rocmtunectl status
// --json`, the daemon's Describe() and snapshot metadata all print this.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "detect/inventory.h"
#include "knobs/backend.h"

namespace rocmtune::api {

inline constexpr const char* kStatusSchema = "rocmtune.status.v1";

nlohmann::ordered_json StatusJson(const detect::Inventory& inv);
// With the knobs section filled (configured, running, effective, owner, pending reboot).
nlohmann::ordered_json StatusJson(const detect::Inventory& inv, const std::vector<knobs::KnobState>& knob_states);

nlohmann::ordered_json GpuJson(const detect::Gpu& gpu);

}  // namespace rocmtune::api
