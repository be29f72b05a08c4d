// The one strict reader every TOML table rocmtune ships or reads goes through (data/*.toml,
// profiles/*.toml, the admin's /etc/rocmtune/profiles/*.toml). Each loader names the keys a
// table may hold, their types and which are required; a key outside that list is refused with
// the file and the entry ("data/gpus.toml: [[gpu]] #12 (Radeon RX 5700 XT): unknown key
// 'famly' ..."), because a misspelt key silently ignored is a fact silently lost.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "util/result.h"

namespace rocmtune {

enum class TomlType {
  kString,
  kInteger,
  kBoolean,
  kStringArray,   // ["a", "b"]
  kIntegerArray,  // [1, 2]
  kTable,         // [x] or x = { ... }: the loader checks its keys with its own list
  kStringTable,   // a table whose keys are free and whose values are strings (env = { A = "1" })
  kTableArray,    // [[x]]
};

struct TomlKey {
  std::string_view name;
  TomlType type;
  bool required = false;
};

// toml++ reports syntax errors by exception; the loaders want a Result naming the origin.
// Every TOML text goes through here, and through CheckTomlBytes first (see util/toml_guard.h).
Result<toml::table> ParseTomlDocument(std::string_view text, std::string_view origin);

// kInvalidData "<where>: ..." for the first key of `table` not in `keys`, the first required
// key missing, or the first value of another type; nothing when the table may be read.
// After it the accessors below see only the types the list names.
Result<void> CheckTomlTable(const toml::table& table, std::span<const TomlKey> keys, std::string_view where);

// How an entry of an array of tables is named in messages: "<origin>: [[gpu]] #12 (label)",
// counting from 1 as a person reading the file does; without a label "<origin>: [[gpu]] #12".
std::string TomlEntryName(std::string_view origin, std::string_view array, size_t index, std::string_view label);

// The tables of the array `key` (checked as kTableArray); empty when the key is absent.
std::vector<const toml::table*> TomlTables(const toml::table& table, std::string_view key);

// "a string", "an integer", ...: what a value is, for messages.
std::string_view TomlTypeName(const toml::node& node);

std::optional<std::string> TomlString(const toml::table& t, std::string_view key);
std::optional<int64_t> TomlInt(const toml::table& t, std::string_view key);
std::optional<bool> TomlBool(const toml::table& t, std::string_view key);
std::vector<std::string> TomlStrings(const toml::table& t, std::string_view key);

}  // namespace rocmtune
