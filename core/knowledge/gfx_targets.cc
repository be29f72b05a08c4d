#include "knowledge/gfx_targets.h"

#include <cstdint>

#include <fmt/format.h>

#include "util/toml_reader.h"

namespace rocmtune::knowledge {

std::string GfxNameFromVersion(uint32_t version) {
  uint32_t major = version / 10000;
  uint32_t minor = (version / 100) % 100;
  uint32_t stepping = version % 100;
  return fmt::format("gfx{}{:x}{:x}", major, minor, stepping);
}

namespace {

constexpr TomlKey kGfxTargetsTopKeys[] = {{"target", TomlType::kTableArray}};
constexpr TomlKey kTargetKeys[] = {
    {"gfx_target_version", TomlType::kInteger, true},
    {"gfx_target", TomlType::kString, true},
    {"gc_ips", TomlType::kStringArray},
    {"family", TomlType::kString},
    {"apu", TomlType::kBoolean},
    {"source", TomlType::kString},
};

Result<GfxTarget> ParseTarget(const toml::table& t, std::string_view where) {
  if (auto ok = CheckTomlTable(t, kTargetKeys, where); !ok) return tl::unexpected(ok.error());
  const int64_t version = *TomlInt(t, "gfx_target_version");
  if (version <= 0 || version > UINT32_MAX)
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: gfx_target_version {} is out of range", where, version));
  GfxTarget target;
  target.version = static_cast<uint32_t>(version);
  target.name = *TomlString(t, "gfx_target");
  target.gc_ips = TomlStrings(t, "gc_ips");
  if (auto family = TomlString(t, "family")) {
    target.family = ParseFamily(*family);
    if (!target.family) return Fail(ErrorCode::kInvalidData, fmt::format("{}: unknown family '{}'", where, *family));
  }
  target.apu = TomlBool(t, "apu");
  target.source = TomlString(t, "source").value_or("");
  return target;
}

}  // namespace

Result<GfxTargetTable> GfxTargetTable::Parse(std::string_view toml_text, std::string_view origin) {
  auto parsed = ParseTomlDocument(toml_text, origin);
  if (!parsed) return tl::unexpected(parsed.error());
  if (auto ok = CheckTomlTable(*parsed, kGfxTargetsTopKeys, origin); !ok) return tl::unexpected(ok.error());
  const std::vector<const toml::table*> entries = TomlTables(*parsed, "target");
  if (entries.empty()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: no [[target]] entries", origin));
  GfxTargetTable table;
  for (size_t i = 0; i < entries.size(); ++i) {
    auto target = ParseTarget(*entries[i],
                              TomlEntryName(origin, "target", i, TomlString(*entries[i], "gfx_target").value_or("")));
    if (!target) return tl::unexpected(target.error());
    table.targets_.push_back(std::move(*target));
  }
  return table;
}

const GfxTarget* GfxTargetTable::ByVersion(uint32_t version) const {
  for (const GfxTarget& t : targets_)
    if (t.version == version) return &t;
  return nullptr;
}

const GfxTarget* GfxTargetTable::ByName(std::string_view name) const {
  for (const GfxTarget& t : targets_)
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<const GfxTarget*> GfxTargetTable::ByGcIp(std::string_view gc_ip) const {
  std::vector<const GfxTarget*> out;
  for (const GfxTarget& t : targets_)
    for (const std::string& ip : t.gc_ips)
      if (ip == gc_ip) out.push_back(&t);
  return out;
}

}  // namespace rocmtune::knowledge
