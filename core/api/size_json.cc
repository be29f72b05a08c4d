#include "api/size_json.h"

#include <nlohmann/json.hpp>

#include "knobs/knob_key.h"
#include "knobs/size_checks.h"
#include "knowledge/param_size.h"

namespace rocmtune::api {

nlohmann::ordered_json WithSizes(const nlohmann::ordered_json& row, std::string_view key_text) {
  using sized_json = nlohmann::ordered_json;
  auto key = knobs::ParseKnobKey(key_text);
  if (!key) return row;
  const knowledge::ModuleParam* param = knobs::SizeParam(knowledge::Catalog::Builtin(), *key);
  if (!param) return row;
  sized_json out = sized_json::object();
  for (const auto& [name, value] : row.items()) {
    out[name] = value;
    if (name == "key" || name == "subject") out["unit"] = knowledge::UnitName(*param->unit);
    if (name != "configured" && name != "running" && name != "effective") continue;
    std::optional<uint64_t> bytes =
        value.is_string() ? knowledge::SizeBytes(*param, value.get<std::string>()) : std::nullopt;
    out[name + "_bytes"] = bytes ? sized_json(*bytes) : sized_json(nullptr);
  }
  return out;
}

}  // namespace rocmtune::api
