#include "util/toml_reader.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/suggest.h"
#include "util/toml_guard.h"

namespace rocmtune {
namespace {

tl::unexpected<Error> Bad(std::string_view where, std::string_view what) {
  return Fail(ErrorCode::kInvalidData, fmt::format("{}: {}", where, what));
}

const toml::node* FirstNot(const toml::array& a, toml::node_type type) {
  for (const toml::node& n : a)
    if (n.type() != type) return &n;
  return nullptr;
}

// What is wrong with `node` as the value of `key`, or "".
std::string TypeError(const toml::node& node, const TomlKey& key) {
  const std::string_view is = TomlTypeName(node);
  switch (key.type) {
    case TomlType::kString: return node.is_string() ? "" : fmt::format("'{}' must be a string, not {}", key.name, is);
    case TomlType::kInteger:
      return node.is_integer() ? "" : fmt::format("'{}' must be an integer, not {}", key.name, is);
    case TomlType::kBoolean:
      return node.is_boolean() ? "" : fmt::format("'{}' must be true or false, not {}", key.name, is);
    case TomlType::kStringArray:
    case TomlType::kIntegerArray: {
      const bool strings = key.type == TomlType::kStringArray;
      const toml::array* a = node.as_array();
      if (!a) return fmt::format("'{}' must be an array of {}, not {}", key.name, strings ? "strings" : "integers", is);
      const toml::node* odd = FirstNot(*a, strings ? toml::node_type::string : toml::node_type::integer);
      if (odd)
        return fmt::format("'{}' must hold {}, not {}", key.name, strings ? "strings" : "integers", TomlTypeName(*odd));
      return "";
    }
    case TomlType::kTable: return node.is_table() ? "" : fmt::format("'{}' must be a table, not {}", key.name, is);
    case TomlType::kStringTable: {
      const toml::table* t = node.as_table();
      if (!t) return fmt::format("'{}' must be a table of strings, not {}", key.name, is);
      for (const auto& [k, v] : *t)
        if (!v.is_string()) return fmt::format("'{}.{}' must be a string, not {}", key.name, k.str(), TomlTypeName(v));
      return "";
    }
    case TomlType::kTableArray: {
      const toml::array* a = node.as_array();
      if (!a) return fmt::format("'{}' must be an array of tables ([[{}]]), not {}", key.name, key.name, is);
      for (size_t i = 0; i < a->size(); ++i)
        if (!(*a)[i].is_table())
          return fmt::format("{}[{}] must be a table, not {}", key.name, i, TomlTypeName((*a)[i]));
      return "";
    }
  }
  return "";
}

}  // namespace

Result<toml::table> ParseTomlDocument(std::string_view text, std::string_view origin) {
  if (auto ok = CheckTomlBytes(text, origin); !ok) return tl::unexpected(ok.error());
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: {}", origin, e.description()));
  }
}

Result<void> CheckTomlTable(const toml::table& table, std::span<const TomlKey> keys, std::string_view where) {
  for (const auto& [name, node] : table) {
    const std::string_view given = name.str();  // clang 14 cannot capture a structured binding
    auto key = std::find_if(keys.begin(), keys.end(), [&](const TomlKey& k) { return k.name == given; });
    if (key == keys.end()) {
      std::string known;
      std::vector<std::string> names;
      for (const TomlKey& k : keys) {
        known += fmt::format("{}{}", known.empty() ? "" : ", ", k.name);
        names.emplace_back(k.name);
      }
      return Bad(where, fmt::format("unknown key '{}' (known: {}).{}", given, known, text::DidYouMean(given, names)));
    }
    if (std::string why = TypeError(node, *key); !why.empty()) return Bad(where, why);
  }
  for (const TomlKey& k : keys)
    if (k.required && !table.contains(k.name)) return Bad(where, fmt::format("'{}' is missing", k.name));
  return {};
}

std::string TomlEntryName(std::string_view origin, std::string_view array, size_t index, std::string_view label) {
  if (label.empty()) return fmt::format("{}: [[{}]] #{}", origin, array, index + 1);
  return fmt::format("{}: [[{}]] #{} ({})", origin, array, index + 1, label);
}

std::vector<const toml::table*> TomlTables(const toml::table& table, std::string_view key) {
  std::vector<const toml::table*> out;
  if (const toml::array* a = table[key].as_array())
    for (const toml::node& n : *a)
      if (const toml::table* t = n.as_table()) out.push_back(t);
  return out;
}

std::string_view TomlTypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    default: return "a date or time";
  }
}

std::optional<std::string> TomlString(const toml::table& t, std::string_view key) {
  if (auto v = t[key].value<std::string>()) return *v;
  return std::nullopt;
}

std::optional<int64_t> TomlInt(const toml::table& t, std::string_view key) {
  if (auto v = t[key].value<int64_t>()) return *v;
  return std::nullopt;
}

std::optional<bool> TomlBool(const toml::table& t, std::string_view key) {
  if (auto v = t[key].value<bool>()) return *v;
  return std::nullopt;
}

std::vector<std::string> TomlStrings(const toml::table& t, std::string_view key) {
  std::vector<std::string> out;
  if (const toml::array* a = t[key].as_array())
    for (const toml::node& n : *a)
      if (auto s = n.value<std::string>()) out.push_back(*s);
  return out;
}

}  // namespace rocmtune
