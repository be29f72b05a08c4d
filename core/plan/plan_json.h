// The plan as a JSON document (schema rocmtune.plan.v1): what rocmtunectl or the daemon hands
// to rocmtune-helper on stdin. The helper treats it as untrusted: parsing is strict and the
// allow-list check comes after it.
#pragma once

#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "plan/plan.h"
#include "util/result.h"

namespace rocmtune::plan {

inline constexpr const char* kPlanSchema = "rocmtune.plan.v1";
// A plan bigger than this is not one rocmtune makes (a few small files and attributes).
inline constexpr size_t kMaxPlanBytes = 16 << 20;

nlohmann::ordered_json IntentToJson(const Intent& intent);
Result<Intent> IntentFromJson(const nlohmann::ordered_json& j);

nlohmann::ordered_json OpToJson(const Op& op);
Result<Op> OpFromJson(const nlohmann::ordered_json& j, size_t index);

nlohmann::ordered_json PlanToJson(const Plan& plan);
Result<Plan> PlanFromJson(std::string_view text);

Result<OpKind> ParseOpKind(std::string_view name);
Result<Regen> ParseRegen(std::string_view name);

}  // namespace rocmtune::plan
