// Small typed accessors over toml++ tables, shared by the knowledge loaders.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "util/result.h"
#include "util/toml_guard.h"

namespace rocmtune::knowledge {

// toml++ reports syntax errors by exception; the loaders want a Result naming the origin.
// Every TOML text goes through here, and through CheckTomlBytes first (see util/toml_guard.h).
inline Result<toml::table> ParseTomlDocument(std::string_view text, std::string_view origin) {
  if (auto ok = CheckTomlBytes(text, origin); !ok) return tl::unexpected(ok.error());
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: {}", origin, e.description()));
  }
}

inline std::optional<std::string> TomlString(const toml::table& t, std::string_view key) {
  if (auto v = t[key].value<std::string>()) return *v;
  return std::nullopt;
}

inline std::optional<int64_t> TomlInt(const toml::table& t, std::string_view key) {
  if (auto v = t[key].value<int64_t>()) return *v;
  return std::nullopt;
}

inline std::optional<bool> TomlBool(const toml::table& t, std::string_view key) {
  if (auto v = t[key].value<bool>()) return *v;
  return std::nullopt;
}

}  // namespace rocmtune::knowledge
