// modprobe backend: amdgpu / ttm / amdttm options in one rocmtune-owned drop-in,
// /etc/modprobe.d/rocmtune.conf. Effective values come from libkmod over every modprobe.d
// directory plus the kernel command line, which wins.
#pragma once

#include "knobs/backend.h"

namespace rocmtune::knobs {

inline constexpr std::string_view kModprobeDropIn = "etc/modprobe.d/rocmtune.conf";

class ModprobeBackend final : public Backend {
 public:
  std::string_view Name() const override { return "modprobe"; }
  bool Handles(const KnobKey& key) const override { return key.kind == KnobKind::kModuleParam; }
  void Validate(const KnobContext& ctx, const KnobKey& key, const std::optional<std::string>& value,
                plan::Plan& plan) const override;
  KnobState Read(const KnobContext& ctx, const KnobKey& key) const override;
  void PlanChanges(const KnobContext& ctx, std::span<const Assignment> set, std::span<const KnobKey> unset,
                   plan::Plan& plan) const override;
  std::vector<KnobKey> ConfiguredKeys(const KnobContext& ctx) const override;
  std::vector<KnobKey> OwnedKeys(const KnobContext& ctx) const override;
  std::vector<std::string> Describe(const KnobContext& ctx, const KnobKey& key) const override;
};

// The drop-in's text for these options (module -> name -> value), stable order.
std::string RenderModprobeDropIn(const std::map<std::string, std::map<std::string, std::string>>& options);

}  // namespace rocmtune::knobs
