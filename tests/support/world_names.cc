#include "world_names.h"

#include <algorithm>
#include <filesystem>

namespace rocmtune::testing {

std::vector<std::string> WorldNames() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(ROCMTUNE_WORLDS_DIR))
    if (entry.is_directory() && std::filesystem::exists(entry.path() / "PROVENANCE.md"))
      names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

std::string WorldPath(const std::string& name) { return (std::filesystem::path(ROCMTUNE_WORLDS_DIR) / name).string(); }

}  // namespace rocmtune::testing
