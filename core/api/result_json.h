// The result document of apply/set/unset/revert/reset (schema rocmtune.result.v1).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "plan/plan.h"

namespace rocmtune::api {

inline constexpr const char* kResultSchema = "rocmtune.result.v1";

// `check`: the plan was only computed. `transaction`: the journal id once applied.
nlohmann::ordered_json ResultJson(const plan::Plan& plan, bool check, const std::optional<std::string>& transaction);

}  // namespace rocmtune::api
