// sysfs backend: runtime attributes of amdgpu devices, from an allow-list with their real
// formats. Keys: sysfs.<cardN|PCI slot|all>.<attribute>. Never a raw path from a caller.
#pragma once

#include <memory>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "knobs/backend.h"

namespace rocmtune::knobs {

// A runtime attribute rocmtune manages, with the values the driver accepts. The helper's
// allow-list reads the same table, so the two cannot disagree about what may be written.
struct SysfsAttribute {
  std::string_view name;
  std::vector<std::string_view> values;  // empty: values come from the device (profiles)
  std::string_view description;
  std::string_view source;
};

std::span<const SysfsAttribute> SysfsAttributes();
const SysfsAttribute* FindSysfsAttribute(std::string_view name);

struct PowerProfile {
  int index = 0;
  std::string name;
  bool active = false;
};

// pp_power_profile_mode as printed by every generation (vega10/smu7 tables, SMU11+ blocks):
// lines "  5 COMPUTE*:" / " 1 3D_FULL_SCREEN *:" name the profiles, '*' the active one.
std::vector<PowerProfile> ParsePowerProfiles(std::string_view content);

// The sysfs backend, for the registry (knobs/registry.cc) — the only place that makes backends.
std::unique_ptr<Backend> MakeSysfsBackend();

}  // namespace rocmtune::knobs
