// PCI device id -> product facts: the last-resort identification when neither KFD nor
// ip_discovery answers. Data: data/gpus.toml (data/PROVENANCE.md), compiled in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "knowledge/family.h"
#include "util/result.h"

namespace rocmtune::knowledge {

struct BuiltinData;

struct GpuModel {
  std::string product;
  std::vector<uint16_t> pci_ids;  // vendor 0x1002
  std::optional<std::string> gfx_target;
  std::optional<uint32_t> gfx_target_version;
  std::optional<std::string> gc_ip;
  std::optional<Family> family;
  std::optional<bool> apu;
  std::string source;

  bool operator==(const GpuModel&) const = default;
};

class GpuTable {
 public:
  static const GpuTable& Builtin();
  static Result<GpuTable> Parse(std::string_view toml, std::string_view origin);

  const GpuModel* ByDeviceId(uint16_t device_id) const;
  const std::vector<GpuModel>& models() const { return models_; }

  bool operator==(const GpuTable&) const = default;

 private:
  friend struct BuiltinData;  // builds the table the build generated (knowledge/builtin_data.h)
  std::vector<GpuModel> models_;
};

}  // namespace rocmtune::knowledge
