#include "plan/owned_paths.h"

#include <algorithm>

namespace rocmtune::plan {

std::span<const std::string_view> OwnedFiles() {
  static constexpr std::string_view kOwned[] = {kModprobeDropIn, kEnvironmentDropIn, kProfileDropIn, kGrubDropInPath,
                                                kCmdlineTokensState};
  return kOwned;
}

bool IsOwnedFile(std::string_view path) {
  auto owned = OwnedFiles();
  return std::find(owned.begin(), owned.end(), path) != owned.end();
}

}  // namespace rocmtune::plan
