#include "knowledge/gpu_table.h"

#include <fmt/format.h>

#include "knowledge/builtin.h"
#include "knowledge/embedded.h"
#include "knowledge/toml_fields.h"
#include "util/text.h"

namespace rocmtune::knowledge {

Result<GpuTable> GpuTable::Parse(std::string_view toml_text, std::string_view origin) {
  auto parsed = ParseTomlDocument(toml_text, origin);
  if (!parsed) return tl::unexpected(parsed.error());
  const toml::table& doc = *parsed;
  const toml::array* entries = doc["gpu"].as_array();
  if (!entries) return Fail(ErrorCode::kInvalidData, fmt::format("{}: no [[gpu]] entries", origin));
  GpuTable table;
  for (const toml::node& node : *entries) {
    const toml::table* t = node.as_table();
    if (!t) return Fail(ErrorCode::kInvalidData, fmt::format("{}: [[gpu]] is not a table", origin));
    GpuModel model;
    model.product = TomlString(*t, "product").value_or("");
    if (const toml::array* ids = (*t)["pci_ids"].as_array()) {
      for (const toml::node& id : *ids) {
        auto hex = id.value<std::string>();
        auto value = hex ? text::ParseHex(*hex) : std::nullopt;
        if (!value || *value > 0xffff)
          return Fail(ErrorCode::kInvalidData, fmt::format("{}: {}: bad PCI id", origin, model.product));
        model.pci_ids.push_back(static_cast<uint16_t>(*value));
      }
    }
    if (model.product.empty() || model.pci_ids.empty())
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: a [[gpu]] lacks product or pci_ids", origin));
    model.gfx_target = TomlString(*t, "gfx_target");
    if (auto v = TomlInt(*t, "gfx_target_version")) model.gfx_target_version = static_cast<uint32_t>(*v);
    model.gc_ip = TomlString(*t, "gc_ip");
    if (auto family = TomlString(*t, "family")) {
      model.family = ParseFamily(*family);
      if (!model.family)
        return Fail(ErrorCode::kInvalidData,
                    fmt::format("{}: {}: unknown family '{}'", origin, model.product, *family));
    }
    model.apu = TomlBool(*t, "apu");
    model.source = TomlString(*t, "source").value_or("");
    table.models_.push_back(std::move(model));
  }
  return table;
}

const GpuTable& GpuTable::Builtin() {
  static const GpuTable table = LoadBuiltin<GpuTable>(embedded::kGpusToml, "data/gpus.toml");
  return table;
}

const GpuModel* GpuTable::ByDeviceId(uint16_t device_id) const {
  for (const GpuModel& m : models_)
    for (uint16_t id : m.pci_ids)
      if (id == device_id) return &m;
  return nullptr;
}

}  // namespace rocmtune::knowledge
