// Effective values: what the driver really uses when a parameter says "auto" (-1), per GPU,
// following the kernel code each rule names.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "detect/inventory.h"
#include "knowledge/catalog.h"
#include "sys/root.h"

namespace rocmtune::knobs {

struct GcVersion {
  int major = 0, minor = 0, rev = 0;
  auto operator<=>(const GcVersion&) const = default;
};
std::optional<GcVersion> ParseGc(std::string_view text);

// The GC IP of a GPU: detected, or the only one its gfx target maps to.
std::optional<GcVersion> GpuGc(const detect::Gpu& gpu);

// The GC IP, or every GC IP its gfx target can be (gfx942: 9.4.3 or 9.4.4); empty if unknown.
std::vector<GcVersion> CandidateGcs(const detect::Gpu& gpu);

// "6.8.0-45-generic" -> {6, 8}
std::optional<std::pair<int, int>> KernelVersion(const std::optional<std::string>& release);

// Resolves `value` (as configured or running) through the parameter's effective rule.
// nullopt when the rule needs facts that are unknown. Without a rule: the value itself.
std::optional<std::string> EffectiveValue(const knowledge::ModuleParam& param, const std::string& value,
                                          const detect::Inventory& inventory);

// Whether `module` ("amdgpu", "ttm", "amdttm") is loaded: /sys/module/<module>. A module that is
// not loaded uses no value at all, so no setting of it is EFFECTIVE (kNotLoaded). ttm also counts
// as loaded with amdgpu and no amdttm: amdgpu links it (a capture may lack /sys/module/ttm).
inline constexpr std::string_view kNotLoaded = "not loaded";
bool ModuleLoaded(const sys::Root& root, const detect::Inventory& inventory, std::string_view module);

// GPUs of the inventory the parameter has any effect on (all of them when it does not say).
std::vector<const detect::Gpu*> AffectedGpus(const knowledge::ModuleParam& param, const detect::Inventory& inventory);

}  // namespace rocmtune::knobs
