// Which gfx targets each ROCm release supports on Linux, from AMD's GPU tables
// (data/rocm_support.toml, compiled in). Parsing and lookups only; judging a machine's GPUs
// against its installed ROCm is diagnose/support_checks.cc.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "knowledge/gfx_targets.h"
#include "knowledge/known_issues.h"
#include "util/result.h"

namespace rocmtune::knowledge {

struct BuiltinData;

enum class TargetSupport {
  kSupported,
  kDeprecated,   // still supported; AMD announced the removal
  kRadeonRyzen,  // supported through AMD's "Use ROCm on Radeon and Ryzen" pages only
  kUnsupported,  // listed as unsupported (an end-of-life row)
  kNotListed,
};

struct RocmRelease {
  Version version;
  std::string version_text;  // as written: "6.4.1"
  std::vector<std::string> supported;
  std::vector<std::string> deprecated;
  std::vector<std::string> unsupported;
  std::vector<std::string> radeon_ryzen;
  std::string source;
  std::string note;

  TargetSupport StatusOf(std::string_view gfx) const;

  bool operator==(const RocmRelease&) const = default;
};

// Whether the release supports the target in any way (supported, deprecated, radeon_ryzen).
bool Supports(TargetSupport status);

class RocmSupport {
 public:
  static const RocmSupport& Builtin();
  // Strict: unknown keys, versions that are not N.N[.N], versions out of order, a gfx name not
  // in `targets`, a target in two lists of one release and an entry without a source are refused.
  static Result<RocmSupport> Parse(std::string_view toml_text, std::string_view origin, const GfxTargetTable& targets);

  const std::vector<RocmRelease>& releases() const { return releases_; }
  // The entry an installed release is judged by: the newest entry <= `installed` in the same
  // major.minor line; nullptr when that line is not in the table.
  const RocmRelease* ForInstalled(const Version& installed) const;
  // The release nearest to `installed` that supports `gfx`: the first newer one, else the
  // last older one; nullptr when none does.
  const RocmRelease* NearestSupporting(std::string_view gfx, const Version& installed) const;

  bool operator==(const RocmSupport&) const = default;

 private:
  friend struct BuiltinData;  // builds the table the build generated (knowledge/builtin_data.h)
  std::vector<RocmRelease> releases_;
};

}  // namespace rocmtune::knowledge
