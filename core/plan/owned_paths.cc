#include "plan/owned_paths.h"

#include <algorithm>

namespace rocmtune::plan {

std::span<const std::string_view> OwnedFiles() {
  static constexpr std::string_view kOwned[] = {kModprobeDropIn, kEnvironmentDropIn,  kProfileDropIn,
                                                kGrubDropInPath, kCmdlineTokensState, kRuntimeState,
                                                kTrialState,     kPpdDropIn};
  return kOwned;
}

bool IsOwnedFile(std::string_view path) {
  auto owned = OwnedFiles();
  return std::find(owned.begin(), owned.end(), path) != owned.end();
}

std::string TemporaryName(std::string_view path) {
  size_t slash = path.rfind('/');
  std::string_view parent = slash == std::string_view::npos ? std::string_view() : path.substr(0, slash + 1);
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return std::string(parent) + "." + std::string(base) + std::string(kTemporarySuffix);
}

}  // namespace rocmtune::plan
