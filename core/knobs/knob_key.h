// Knob keys as users type them: `amdgpu.noretry`, `ttm.pages_limit`, `cmdline.iommu`,
// `sysfs.<card|pci-slot|all>.power_dpm_force_performance_level`, `env.HSA_OVERRIDE_GFX_VERSION`,
// `service.power-profiles-daemon.amdgpu_dpm` (another daemon's writing of GPU attributes).
#pragma once

#include <string>
#include <string_view>

#include "util/result.h"

namespace rocmtune::knobs {

enum class KnobKind { kModuleParam, kCmdline, kSysfs, kEnv, kService };

struct KnobKey {
  KnobKind kind = KnobKind::kModuleParam;
  std::string module;  // kModuleParam: "amdgpu", "ttm", "amdttm"; kService: the service
                       // ("power-profiles-daemon")
  std::string target;  // kSysfs: "card0", "0000:03:00.0" or "all"
  std::string name;    // parameter, kernel option, attribute or variable name; kService: its action

  std::string Text() const;
  bool operator==(const KnobKey&) const = default;
};

// Refuses anything that is not one of the forms above, with a message naming the forms.
Result<KnobKey> ParseKnobKey(std::string_view text);

struct Assignment {
  KnobKey key;
  std::string value;
};

// "KEY=VALUE" (the value may contain '=': `cmdline.amdgpu.lockup_timeout=...`).
Result<Assignment> ParseAssignment(std::string_view text);

}  // namespace rocmtune::knobs
