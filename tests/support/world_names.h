// The bundled worlds (tests/worlds/*/ with a PROVENANCE.md), sorted: the one list of worlds,
// the parameter list of every test that runs on all of them.
#pragma once

#include <string>
#include <vector>

namespace rocmtune::testing {

std::vector<std::string> WorldNames();
// tests/worlds/NAME
std::string WorldPath(const std::string& name);

}  // namespace rocmtune::testing
