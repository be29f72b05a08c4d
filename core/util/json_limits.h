// Bounds on JSON that comes from outside the process (plans on the helper's stdin, journal
// records on disk). nlohmann-json parses any nesting depth, but copying or comparing a deep
// document recurses once per level, so a few thousand brackets overflow the stack. rocmtune's
// own documents nest a handful of levels; anything deeper is refused before nlohmann sees it.
#pragma once

#include <cstddef>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "util/result.h"

namespace rocmtune {

// A plan nests 4 levels (document, ops, op, {"base64"}); a journal record 5. Room to grow.
inline constexpr size_t kMaxJsonDepth = 32;

// The deepest nesting of [ and { outside strings (escapes respected). Stops counting once it
// passes `stop_after`, so the scan is one pass whatever the input.
size_t JsonDepth(std::string_view text, size_t stop_after = kMaxJsonDepth);

// Parses `text` as one JSON document, refusing (kInvalidData, `what` named) one that nests
// deeper than `max_depth` or is not JSON. Never throws.
Result<nlohmann::ordered_json> ParseBoundedJson(std::string_view text, std::string_view what,
                                                size_t max_depth = kMaxJsonDepth);

}  // namespace rocmtune
