// One table of {value, name} pairs per enum that has names (in JSON, on the command line, in
// data files), and the two lookups every such table needs, so no enum carries its own loops.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace rocmtune {

template <typename E>
struct EnumName {
  E value;
  std::string_view name;
};

template <typename E, size_t N>
using EnumNames = std::array<EnumName<E>, N>;

// The name of `value`, or `fallback` for a value the table lacks (an integer cast to E).
template <typename E, size_t N>
constexpr std::string_view NameOf(const EnumNames<E, N>& table, E value, std::string_view fallback) {
  for (const EnumName<E>& entry : table)
    if (entry.value == value) return entry.name;
  return fallback;
}

// The value named exactly `name` (case-sensitive), or nothing.
template <typename E, size_t N>
constexpr std::optional<E> ParseName(const EnumNames<E, N>& table, std::string_view name) {
  for (const EnumName<E>& entry : table)
    if (entry.name == name) return entry.value;
  return std::nullopt;
}

// No value and no name twice: each table static_asserts it, so a copied row cannot make a
// name parse to the wrong value.
template <typename E, size_t N>
constexpr bool Distinct(const EnumNames<E, N>& table) {
  for (size_t i = 0; i < N; ++i)
    for (size_t j = i + 1; j < N; ++j)
      if (table[i].value == table[j].value || table[i].name == table[j].name) return false;
  return true;
}

}  // namespace rocmtune
