// Unified diffs for plans (`--check`, `--diff`, JSON `changes[].diff`).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rocmtune::plan {

// `diff -u` style with 3 lines of context; nullopt content means the file does not exist
// (shown as /dev/null). Empty string when both are equal.
std::string UnifiedDiff(std::string_view path, const std::optional<std::string>& before,
                        const std::optional<std::string>& after);

}  // namespace rocmtune::plan
