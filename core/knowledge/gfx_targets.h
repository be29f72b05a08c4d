// The kernel's KFD gfx_target_version table (kfd_device.c kgd2kfd_probe): which GC IP
// versions map to which ROCm ISA, and the family / APU facts that follow from the ISA.
// Data: data/gfx_targets.toml, compiled in.
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

struct GfxTarget {
  uint32_t version = 0;  // KFD gfx_target_version, e.g. 90010
  std::string name;      // "gfx90a"
  std::vector<std::string> gc_ips;
  std::optional<Family> family;  // unset when the ISA spans families (gfx803)
  std::optional<bool> apu;       // unset when the ISA exists as APU and dGPU (gfx942)
  std::string source;

  bool operator==(const GfxTarget&) const = default;
};

// "gfx" + major (decimal) + minor and stepping as hex digits: 90010 -> "gfx90a".
// Never concatenate GC IP numbers instead (that gives "gfx943" for MI300X).
std::string GfxNameFromVersion(uint32_t version);

class GfxTargetTable {
 public:
  static const GfxTargetTable& Builtin();
  static Result<GfxTargetTable> Parse(std::string_view toml, std::string_view origin);

  const GfxTarget* ByVersion(uint32_t version) const;
  const GfxTarget* ByName(std::string_view name) const;
  // Every target the kernel maps this GC IP to (GC 9.4.3 has three, by silicon revision).
  std::vector<const GfxTarget*> ByGcIp(std::string_view gc_ip) const;
  const std::vector<GfxTarget>& targets() const { return targets_; }

  bool operator==(const GfxTargetTable&) const = default;

 private:
  friend struct BuiltinData;  // builds the table the build generated (knowledge/builtin_data.h)
  std::vector<GfxTarget> targets_;
};

}  // namespace rocmtune::knowledge
