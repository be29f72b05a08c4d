#include "knowledge/gpu_table.h"

#include <fmt/format.h>

#include "util/text.h"
#include "util/toml_reader.h"

namespace rocmtune::knowledge {

namespace {

constexpr TomlKey kGpuTableTopKeys[] = {{"gpu", TomlType::kTableArray}};
constexpr TomlKey kGpuKeys[] = {
    {"product", TomlType::kString, true}, {"pci_ids", TomlType::kStringArray, true},
    {"gfx_target", TomlType::kString},    {"gfx_target_version", TomlType::kInteger},
    {"gc_ip", TomlType::kString},         {"family", TomlType::kString},
    {"apu", TomlType::kBoolean},          {"source", TomlType::kString},
};

Result<GpuModel> ParseGpu(const toml::table& t, std::string_view where) {
  if (auto ok = CheckTomlTable(t, kGpuKeys, where); !ok) return tl::unexpected(ok.error());
  GpuModel model;
  model.product = *TomlString(t, "product");
  for (const std::string& hex : TomlStrings(t, "pci_ids")) {
    auto value = text::ParseHex(hex);
    if (!value || *value > 0xffff) return Fail(ErrorCode::kInvalidData, fmt::format("{}: bad PCI id '{}'", where, hex));
    model.pci_ids.push_back(static_cast<uint16_t>(*value));
  }
  if (model.product.empty() || model.pci_ids.empty())
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: product and pci_ids may not be empty", where));
  model.gfx_target = TomlString(t, "gfx_target");
  if (auto v = TomlInt(t, "gfx_target_version")) model.gfx_target_version = static_cast<uint32_t>(*v);
  model.gc_ip = TomlString(t, "gc_ip");
  if (auto family = TomlString(t, "family")) {
    model.family = ParseFamily(*family);
    if (!model.family) return Fail(ErrorCode::kInvalidData, fmt::format("{}: unknown family '{}'", where, *family));
  }
  model.apu = TomlBool(t, "apu");
  model.source = TomlString(t, "source").value_or("");
  return model;
}

}  // namespace

Result<GpuTable> GpuTable::Parse(std::string_view toml_text, std::string_view origin) {
  auto parsed = ParseTomlDocument(toml_text, origin);
  if (!parsed) return tl::unexpected(parsed.error());
  if (auto ok = CheckTomlTable(*parsed, kGpuTableTopKeys, origin); !ok) return tl::unexpected(ok.error());
  const std::vector<const toml::table*> entries = TomlTables(*parsed, "gpu");
  if (entries.empty()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: no [[gpu]] entries", origin));
  GpuTable table;
  for (size_t i = 0; i < entries.size(); ++i) {
    auto model =
        ParseGpu(*entries[i], TomlEntryName(origin, "gpu", i, TomlString(*entries[i], "product").value_or("")));
    if (!model) return tl::unexpected(model.error());
    table.models_.push_back(std::move(*model));
  }
  return table;
}

const GpuModel* GpuTable::ByDeviceId(uint16_t device_id) const {
  for (const GpuModel& m : models_)
    for (uint16_t id : m.pci_ids)
      if (id == device_id) return &m;
  return nullptr;
}

}  // namespace rocmtune::knowledge
