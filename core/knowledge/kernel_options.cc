#include "knowledge/kernel_options.h"

#include <algorithm>

#include <fmt/format.h>

#include "knowledge/builtin.h"
#include "knowledge/embedded.h"
#include "knowledge/toml_fields.h"

namespace rocmtune::knowledge {

Result<KernelOptions> KernelOptions::Parse(std::string_view toml_text, std::string_view origin) {
  auto parsed = ParseTomlDocument(toml_text, origin);
  if (!parsed) return tl::unexpected(parsed.error());
  const toml::table& doc = *parsed;
  const toml::array* entries = doc["option"].as_array();
  if (!entries) return Fail(ErrorCode::kInvalidData, fmt::format("{}: no [[option]] entries", origin));
  KernelOptions out;
  for (const toml::node& node : *entries) {
    const toml::table* t = node.as_table();
    auto name = t ? TomlString(*t, "name") : std::nullopt;
    auto source = t ? TomlString(*t, "source") : std::nullopt;
    if (!name || !source)
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: an [[option]] lacks name or source", origin));
    KernelOption o;
    o.name = *name;
    o.source = *source;
    o.description = TomlString(*t, "description").value_or("");
    o.list = TomlBool(*t, "list").value_or(false);
    if (const toml::array* values = (*t)["values"].as_array())
      for (const toml::node& v : *values)
        if (auto s = v.value<std::string>()) o.values.push_back(*s);
    if (const toml::table* refuse = (*t)["refuse"].as_table())
      for (const auto& [k, v] : *refuse)
        if (auto s = v.value<std::string>()) o.refuse[std::string(k.str())] = *s;
    out.options_.push_back(std::move(o));
  }
  return out;
}

const KernelOptions& KernelOptions::Builtin() {
  static const KernelOptions table =
      LoadBuiltin<KernelOptions>(embedded::kKernelOptionsToml, "data/kernel_options.toml");
  return table;
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
