// Sizes in the documents: a knob row of a size knob (knobs/size_checks.h SizeParam) gets
// `unit` (after `key` or `subject`) and, right after each of `configured`, `running` and `effective`, a `<field>_bytes`
// number: the value in bytes, null when it is unset, automatic (ttm 0, gttsize -1) or not a
// plain number. Rows of other knobs are returned unchanged. Used by rocmtune.status.v1,
// rocmtune.explain.v1 and rocmtune.verify.v1, so the three say the same sizes.
#pragma once

#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace rocmtune::api {

nlohmann::ordered_json WithSizes(const nlohmann::ordered_json& row, std::string_view key_text);

}  // namespace rocmtune::api
