// The one builder of the status document (schema rocmtune.status.v1): `rocmtunectl status
// --json`, the daemon's Describe() and snapshot metadata all print this.
#pragma once

#include <nlohmann/json.hpp>

#include "detect/inventory.h"

namespace rocmtune::api {

inline constexpr const char* kStatusSchema = "rocmtune.status.v1";

nlohmann::ordered_json StatusJson(const detect::Inventory& inventory);

nlohmann::ordered_json GpuJson(const detect::Gpu& gpu);

}  // namespace rocmtune::api
