#include "knowledge/env_vars.h"

#include <algorithm>
#include <cctype>
#include <span>

#include <fmt/format.h>

#include "util/text.h"
#include "util/toml_reader.h"

namespace rocmtune::knowledge {
namespace {

std::vector<std::string_view> Split(std::string_view s, std::string_view seps) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t p = s.find_first_of(seps, start);
    out.push_back(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) return out;
    start = p + 1;
  }
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IsGfxName(std::string_view s) {
  if (s.size() < 6 || s.size() > 16 || s.substr(0, 3) != "gfx") return false;
  for (char c : s.substr(3))
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != ':' && c != '-' && c != '+') return false;
  return true;
}

}  // namespace

namespace {

constexpr TomlKey kEnvVarsTopKeys[] = {
    {"var", TomlType::kTableArray}, {"not_read", TomlType::kTableArray}, {"debug", TomlType::kTableArray}};
constexpr TomlKey kVarKeys[] = {
    {"name", TomlType::kString, true},  {"check", TomlType::kString, true}, {"source", TomlType::kString, true},
    {"values", TomlType::kStringArray}, {"description", TomlType::kString}, {"on_invalid", TomlType::kString},
};
// Every field a user is shown is required.
constexpr TomlKey kNotReadKeys[] = {{"name", TomlType::kString, true},
                                    {"why", TomlType::kString, true},
                                    {"hint", TomlType::kString, true},
                                    {"source", TomlType::kString, true}};
constexpr TomlKey kDebugKeys[] = {
    {"name", TomlType::kString, true},   {"cost", TomlType::kString, true}, {"hint", TomlType::kString, true},
    {"source", TomlType::kString, true}, {"on", TomlType::kStringArray},    {"off", TomlType::kStringArray},
};

// Checks every entry of the array `array` against `keys` and hands each to `read`.
template <typename Read>
Result<void> ForEachEntry(const toml::table& doc, std::string_view array, std::span<const TomlKey> keys,
                          std::string_view origin, Read read) {
  const std::vector<const toml::table*> entries = TomlTables(doc, array);
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string where = TomlEntryName(origin, array, i, TomlString(*entries[i], "name").value_or(""));
    if (auto ok = CheckTomlTable(*entries[i], keys, where); !ok) return ok;
    if (auto ok = read(*entries[i], where); !ok) return ok;
  }
  return {};
}

}  // namespace

Result<EnvVars> EnvVars::Parse(std::string_view toml_text, std::string_view origin) {
  auto parsed = ParseTomlDocument(toml_text, origin);
  if (!parsed) return tl::unexpected(parsed.error());
  const toml::table& doc = *parsed;
  if (auto ok = CheckTomlTable(doc, kEnvVarsTopKeys, origin); !ok) return tl::unexpected(ok.error());
  if (TomlTables(doc, "var").empty())
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: no [[var]] entries", origin));
  EnvVars out;
  auto vars = ForEachEntry(doc, "var", kVarKeys, origin, [&](const toml::table& t, const std::string& where) {
    EnvVar v{*TomlString(t, "name"),   *TomlString(t, "check"),
             TomlStrings(t, "values"), TomlString(t, "description").value_or(""),
             *TomlString(t, "source"), TomlString(t, "on_invalid").value_or("ignored")};
    if (v.on_invalid != "ignored" && v.on_invalid != "fails")
      return Result<void>(Fail(ErrorCode::kInvalidData, fmt::format("{}: on_invalid is ignored or fails", where)));
    out.vars_.push_back(std::move(v));
    return Result<void>();
  });
  if (!vars) return tl::unexpected(vars.error());
  auto not_read = ForEachEntry(doc, "not_read", kNotReadKeys, origin, [&](const toml::table& t, const std::string&) {
    out.not_read_.push_back(
        {*TomlString(t, "name"), *TomlString(t, "why"), *TomlString(t, "hint"), *TomlString(t, "source")});
    return Result<void>();
  });
  if (!not_read) return tl::unexpected(not_read.error());
  auto debug = ForEachEntry(doc, "debug", kDebugKeys, origin, [&](const toml::table& t, const std::string&) {
    out.debug_.push_back({*TomlString(t, "name"), TomlStrings(t, "on"), TomlStrings(t, "off"), *TomlString(t, "cost"),
                          *TomlString(t, "hint"), *TomlString(t, "source")});
    return Result<void>();
  });
  if (!debug) return tl::unexpected(debug.error());
  return out;
}

const EnvVar* EnvVars::Find(std::string_view name) const {
  for (const EnvVar& v : vars_)
    if (v.name == name) return &v;
  return nullptr;
}

const NotReadVar* EnvVars::FindNotRead(std::string_view name) const {
  for (const NotReadVar& v : not_read_)
    if (v.name == name) return &v;
  return nullptr;
}

const DebugVar* EnvVars::FindDebug(std::string_view name) const {
  for (const DebugVar& v : debug_)
    if (v.name == name) return &v;
  return nullptr;
}

bool DebugSwitchOn(const DebugVar& var, std::string_view value) {
  if (!var.on.empty()) return std::find(var.on.begin(), var.on.end(), value) != var.on.end();
  return std::find(var.off.begin(), var.off.end(), value) == var.off.end();
}

std::string CheckEnvValue(const EnvVar& var, std::string_view value) {
  if (value.empty() || value.size() > 1024) return fmt::format("{}: a value of 1 to 1024 bytes is needed", var.name);
  // The value lands unquoted in /etc/profile.d (a shell script) and environment.d: only
  // characters that are inert in both (the helper's allow-list holds the same line).
  for (char c : value) {
    bool inert = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 std::string_view("._,:+-/=").find(c) != std::string_view::npos;
    if (!inert)
      return fmt::format(
          "{}: '{}' is not allowed: values may hold only letters, digits and . _ , : + - / = "
          "(they are written unquoted into a shell script){}",
          var.name, static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c,
          c == ';' ? "; in /etc/profile.d a ';' ends the command and runs the rest" : "");
  }
  return CheckEnvGrammar(var, value);
}

std::string CheckEnvGrammar(const EnvVar& var, std::string_view value) {
  if (var.check == "enum") {
    if (std::find(var.values.begin(), var.values.end(), value) != var.values.end()) return "";
    std::string accepted;
    for (const auto& v : var.values) accepted += (accepted.empty() ? "" : ", ") + v;
    return fmt::format("{}={} is not accepted (values: {})", var.name, value, accepted);
  }
  if (var.check == "gfx-version") {
    // libhsakmt topology.c: exactly major.minor.stepping, major <= 63, others <= 255.
    auto parts = Split(value, ".");
    if (parts.size() == 3 && AllDigits(parts[0]) && AllDigits(parts[1]) && AllDigits(parts[2])) {
      auto major = text::ParseU64(parts[0]), minor = text::ParseU64(parts[1]), step = text::ParseU64(parts[2]);
      if (major && minor && step && *major <= 63 && *minor <= 255 && *step <= 255) return "";
    }
    return fmt::format(
        "{}={} is invalid: libhsakmt wants N.N.N (major <= 63, minor and stepping <= 255) and "
        "otherwise fails topology init, leaving no GPU usable",
        var.name, value);
  }
  if (var.check == "id-list") {
    for (std::string_view id : Split(value, ","))
      if (!AllDigits(id) && !(id.size() > 4 && id.substr(0, 4) == "GPU-"))
        return fmt::format("{}: '{}' is neither a device index nor a GPU-<uuid>", var.name, id);
    return "";
  }
  if (var.check == "gfx-list") {
    for (std::string_view g : Split(value, ";,"))
      if (!IsGfxName(g)) return fmt::format("{}: '{}' is not a gfx target", var.name, g);
    return "";
  }
  if (var.check == "uint")
    return AllDigits(value) && value.size() < 10 ? "" : fmt::format("{}: a number is needed", var.name);
  if (var.check == "alloc-conf") return CheckAllocConf(var.name, value);
  return fmt::format("{}: unknown check '{}'", var.name, var.check);
}

}  // namespace rocmtune::knowledge
