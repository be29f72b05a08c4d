// Turns raw ids into what a GPU is: gfx target, GC IP, family, APU, marketing name.
// Each source is a fallback for the one before: KFD gfx_target_version, then the GC IP
// from ip_discovery, then the PCI-id table. Ambiguity yields "unknown", never a guess.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "knowledge/amdgpu_ids.h"
#include "knowledge/family.h"

namespace rocmtune::detect {

struct RawIds {
  std::optional<uint16_t> device_id;
  std::optional<uint8_t> revision;
  std::optional<uint32_t> gfx_target_version;  // from KFD; 0 counts as absent
  std::optional<std::string> gc_ip;            // from ip_discovery
  std::optional<std::string> product_name;     // sysfs product_name (often empty)
};

struct Identity {
  std::optional<std::string> gfx_target;
  std::optional<uint32_t> gfx_target_version;
  std::optional<std::string> gc_ip;
  std::optional<knowledge::Family> family;
  std::optional<bool> apu;
  std::string marketing_name;
  std::string source;  // "kfd", "ip_discovery", "pci_table" or "none": what named the gfx target
};

// `system_ids` is the system's amdgpu.ids (may be null). Marketing name: bundled amdgpu.ids,
// the system's, sysfs product_name, the product line from the GPU table, then
// "AMD Radeon Graphics (1002:XXXX)".
Identity Identify(const RawIds& raw, const knowledge::AmdgpuIds* system_ids);

std::string MarketingName(const RawIds& raw, const knowledge::AmdgpuIds* system_ids);

}  // namespace rocmtune::detect
