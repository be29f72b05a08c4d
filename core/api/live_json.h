// The `live` object of a GPU in the status document (only for the live root): rocm-smi-lib's
// firmware versions, ECC counts, PCIe link and replays, throttle status. A value rocm-smi-lib
// did not give is null, and `unknown` says why under the value's path ("firmware.sos").
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "detect/live_facts.h"

namespace rocmtune::api {

nlohmann::ordered_json LiveJson(const detect::LiveFacts& facts);

}  // namespace rocmtune::api
