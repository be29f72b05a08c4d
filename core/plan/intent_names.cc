#include "plan/intent_names.h"

#include <algorithm>
#include <string>
#include <vector>

namespace rocmtune::plan {

bool ValidProfileName(std::string_view name) {
  if (name.empty() || name.size() > 64 || name.front() == '.' || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
  });
}

std::span<const std::string_view> BuiltinProfileNames() {
  // ROCMTUNE_BUILTIN_PROFILE_NAMES: "stock,rdna1-safe,..." (core/CMakeLists.txt).
  static const std::vector<std::string_view> kNames = [] {
    std::vector<std::string_view> names;
    std::string_view all = ROCMTUNE_BUILTIN_PROFILE_NAMES;
    while (!all.empty()) {
      size_t comma = all.find(',');
      names.push_back(all.substr(0, comma));
      all = comma == std::string_view::npos ? std::string_view() : all.substr(comma + 1);
    }
    return names;
  }();
  return kNames;
}

bool IsTransactionId(std::string_view id) {
  return !id.empty() && id.size() <= 20 &&
         std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace rocmtune::plan
