#include "plan/helper_status.h"

#include <array>
#include <utility>

namespace rocmtune::plan {
namespace {

constexpr std::array<std::pair<HelperStatus, std::string_view>, 6> kNames = {{
    {HelperStatus::kCommitted, "committed"},
    {HelperStatus::kUnchanged, "unchanged"},
    {HelperStatus::kRefused, "refused"},
    {HelperStatus::kConflict, "conflict"},
    {HelperStatus::kBusy, "busy"},
    {HelperStatus::kFailed, "failed"},
}};

}  // namespace

std::string_view HelperStatusName(HelperStatus status) {
  for (const auto& [s, name] : kNames)
    if (s == status) return name;
  return "failed";
}

std::optional<HelperStatus> ParseHelperStatus(std::string_view name) {
  for (const auto& [s, n] : kNames)
    if (n == name) return s;
  return std::nullopt;
}

}  // namespace rocmtune::plan
