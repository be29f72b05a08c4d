// Small typed accessors over toml++ tables, shared by the knowledge loaders.
#pragma once

#include <optional>
#include <string>

#include <toml++/toml.h>

namespace rocmtune::knowledge {

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
