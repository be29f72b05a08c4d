#include "util/json_limits.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rocmtune {

size_t JsonDepth(std::string_view text, size_t stop_after) {
  size_t depth = 0;
  size_t deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;  // the escaped character cannot end the string
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > stop_after) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

Result<nlohmann::ordered_json> ParseBoundedJson(std::string_view text, std::string_view what, size_t max_depth) {
  if (JsonDepth(text, max_depth) > max_depth)
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: nests deeper than {} levels", what, max_depth));
  auto doc = nlohmann::ordered_json::parse(text, nullptr, false);
  if (doc.is_discarded()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: not valid JSON", what));
  return doc;
}

}  // namespace rocmtune
