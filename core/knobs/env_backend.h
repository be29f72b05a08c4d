// env backend: ROCm/HIP/PyTorch environment for users' programs, in two owned files:
// /etc/environment.d/90-rocmtune.conf (systemd user sessions, environment.d(5)) and
// /etc/profile.d/rocmtune.sh (login shells). Running processes keep their environment.
#pragma once

#include <map>
#include <string>

#include "detect/finding.h"
#include "knobs/backend.h"

namespace rocmtune::knobs {

inline constexpr std::string_view kEnvironmentDropIn = "etc/environment.d/90-rocmtune.conf";
inline constexpr std::string_view kProfileDropIn = "etc/profile.d/rocmtune.sh";

class EnvBackend final : public Backend {
 public:
  std::string_view Name() const override { return "env"; }
  bool Handles(const KnobKey& key) const override { return key.kind == KnobKind::kEnv; }
  void Validate(const KnobContext& ctx, const KnobKey& key, const std::optional<std::string>& value,
                plan::Plan& plan) const override;
  KnobState Read(const KnobContext& ctx, const KnobKey& key) const override;
  void PlanChanges(const KnobContext& ctx, std::span<const Assignment> set, std::span<const KnobKey> unset,
                   plan::Plan& plan) const override;
  std::vector<KnobKey> ConfiguredKeys(const KnobContext& ctx) const override;
  std::vector<KnobKey> OwnedKeys(const KnobContext& ctx) const override;
  std::vector<std::string> Describe(const KnobContext& ctx, const KnobKey& key) const override;
};

// Status findings: an HSA_OVERRIDE_GFX_VERSION, in any file, that makes a GPU here run code of
// another ISA family (the RDNA1 + 10.3.0 crash of the seeds).
std::vector<detect::Finding> EnvFindings(const KnobContext& ctx);

// name -> value from rocmtune's environment.d file content.
std::map<std::string, std::string> ParseEnvironmentFile(std::string_view content);

}  // namespace rocmtune::knobs
