// Checks a unified diff the way an administrator would use it: `patch` applied to the before
// file must give the after file.
#pragma once

#include <optional>
#include <string>

namespace rocmtune::testing {

// Whether `patch` is on PATH (tests skip, saying so, when it is not).
bool HavePatch();

// `before` (nullopt: no file) patched with `diff` by patch(1) in a scratch directory. Returns
// the patched bytes, nullopt when patch removed the file, or throws with patch's output when
// it failed.
std::optional<std::string> ApplyWithPatch(const std::optional<std::string>& before, const std::string& diff);

}  // namespace rocmtune::testing
