#include "knowledge/kernel_options.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/toml_reader.h"

namespace rocmtune::knowledge {

namespace {

constexpr TomlKey kKernelOptionsTopKeys[] = {{"option", TomlType::kTableArray}};
constexpr TomlKey kOptionKeys[] = {
    {"name", TomlType::kString, true}, {"source", TomlType::kString, true}, {"description", TomlType::kString},
    {"list", TomlType::kBoolean},      {"values", TomlType::kStringArray},  {"refuse", TomlType::kStringTable},
};

}  // namespace

Result<KernelOptions> KernelOptions::Parse(std::string_view toml_text, std::string_view origin) {
  auto parsed = ParseTomlDocument(toml_text, origin);
  if (!parsed) return tl::unexpected(parsed.error());
  if (auto ok = CheckTomlTable(*parsed, kKernelOptionsTopKeys, origin); !ok) return tl::unexpected(ok.error());
  const std::vector<const toml::table*> entries = TomlTables(*parsed, "option");
  if (entries.empty()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: no [[option]] entries", origin));
  KernelOptions out;
  for (size_t i = 0; i < entries.size(); ++i) {
    const toml::table& t = *entries[i];
    const std::string where = TomlEntryName(origin, "option", i, TomlString(t, "name").value_or(""));
    if (auto ok = CheckTomlTable(t, kOptionKeys, where); !ok) return tl::unexpected(ok.error());
    KernelOption o;
    o.name = *TomlString(t, "name");
    o.source = *TomlString(t, "source");
    o.description = TomlString(t, "description").value_or("");
    o.list = TomlBool(t, "list").value_or(false);
    o.values = TomlStrings(t, "values");
    if (const toml::table* refuse = t["refuse"].as_table())
      for (const auto& [k, v] : *refuse) o.refuse[std::string(k.str())] = *v.value<std::string>();
    out.options_.push_back(std::move(o));
  }
  return out;
}

const KernelOption* KernelOptions::Find(std::string_view name) const {
  for (const KernelOption& o : options_)
    if (o.name == name) return &o;
  return nullptr;
}

std::string CheckKernelOptionValue(const KernelOption& option, std::string_view value) {
  if (auto it = option.refuse.find(std::string(value)); it != option.refuse.end()) return it->second;
  std::vector<std::string_view> words;
  if (option.list) {
    size_t start = 0;
    while (start <= value.size()) {
      size_t comma = value.find(',', start);
      words.push_back(value.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  } else {
    words.push_back(value);
  }
  for (std::string_view w : words) {
    if (auto it = option.refuse.find(std::string(w)); it != option.refuse.end()) return it->second;
    if (std::find(option.values.begin(), option.values.end(), w) == option.values.end()) {
      std::string accepted;
      for (const auto& v : option.values) accepted += (accepted.empty() ? "" : ", ") + v;
      return fmt::format("{}={} is not accepted by the kernel (values: {})", option.name, value, accepted);
    }
  }
  return "";
}

}  // namespace rocmtune::knowledge
