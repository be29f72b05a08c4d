#include "knowledge/gfx_targets.h"

#include <fmt/format.h>

#include "knowledge/builtin.h"
#include "knowledge/embedded.h"
#include "knowledge/toml_fields.h"

namespace rocmtune::knowledge {

std::string GfxNameFromVersion(uint32_t version) {
  uint32_t major = version / 10000;
  uint32_t minor = (version / 100) % 100;
  uint32_t stepping = version % 100;
  return fmt::format("gfx{}{:x}{:x}", major, minor, stepping);
}

Result<GfxTargetTable> GfxTargetTable::Parse(std::string_view toml_text, std::string_view origin) {
  auto parsed = ParseTomlDocument(toml_text, origin);
  if (!parsed) return tl::unexpected(parsed.error());
  const toml::table& doc = *parsed;
  GfxTargetTable table;
  const toml::array* entries = doc["target"].as_array();
  if (!entries) return Fail(ErrorCode::kInvalidData, fmt::format("{}: no [[target]] entries", origin));
  for (const toml::node& node : *entries) {
    const toml::table* t = node.as_table();
    auto version = t ? TomlInt(*t, "gfx_target_version") : std::nullopt;
    auto name = t ? TomlString(*t, "gfx_target") : std::nullopt;
    if (!version || !name || *version <= 0)
      return Fail(ErrorCode::kInvalidData,
                  fmt::format("{}: a [[target]] lacks gfx_target_version or gfx_target", origin));
    GfxTarget target;
    target.version = static_cast<uint32_t>(*version);
    target.name = *name;
    if (const toml::array* ips = (*t)["gc_ips"].as_array())
      for (const toml::node& ip : *ips)
        if (auto s = ip.value<std::string>()) target.gc_ips.push_back(*s);
    if (auto family = TomlString(*t, "family")) {
      target.family = ParseFamily(*family);
      if (!target.family)
        return Fail(ErrorCode::kInvalidData, fmt::format("{}: {} has unknown family '{}'", origin, *name, *family));
    }
    target.apu = TomlBool(*t, "apu");
    target.source = TomlString(*t, "source").value_or("");
    table.targets_.push_back(std::move(target));
  }
  return table;
}

const GfxTargetTable& GfxTargetTable::Builtin() {
  static const GfxTargetTable table = LoadBuiltin<GfxTargetTable>(embedded::kGfxTargetsToml, "data/gfx_targets.toml");
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
