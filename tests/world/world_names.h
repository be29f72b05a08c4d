// The bundled worlds (tests/worlds/*/ with a PROVENANCE.md), sorted: the parameter list of every
// test that runs on all of them.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace rocmtune::testing {

inline std::vector<std::string> WorldNames() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(ROCMTUNE_WORLDS_DIR))
    if (entry.is_directory() && std::filesystem::exists(entry.path() / "PROVENANCE.md"))
      names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace rocmtune::testing
