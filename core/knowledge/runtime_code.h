// The GPU targets a runtime build carries code for (data/runtime_code.toml, compiled in): PyTorch's
// official ROCm wheels, AMD's ROCm packages (rocBLAS's Tensile library) and TheRock's wheels. For
// when rocmtune cannot read the code objects themselves; lookups only, judging a GPU is diagnose/.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "knowledge/gfx_targets.h"
#include "util/result.h"

namespace rocmtune::knowledge {

struct BuiltinData;

struct CodeBuild {
  std::string kind;                 // "pytorch", "rocm", "therock"
  std::string version;              // pytorch: the torch minor ("2.4"); rocm/therock: the release line ("6.2")
  std::optional<std::string> rocm;  // pytorch only: the ROCm the wheel is built with ("6.1")
  std::vector<std::string> targets;
  std::string source;
  std::string note;

  bool Carries(std::string_view gfx) const;

  bool operator==(const CodeBuild&) const = default;
};

class RuntimeCode {
 public:
  static const RuntimeCode& Builtin();
  // Checks names against the built-in gfx_targets.toml.
  static Result<RuntimeCode> Parse(std::string_view toml);
  // Strict: unknown keys or kinds, versions that are not N.N, `rocm` missing on a pytorch build
  // or given on another, a gfx name not in `targets`, a target twice, no targets, no source, and
  // builds of one kind out of order are refused.
  static Result<RuntimeCode> Parse(std::string_view toml, std::string_view origin, const GfxTargetTable& targets);

  const std::vector<CodeBuild>& builds() const { return builds_; }
  // The build of `kind` whose version is the major.minor of `version` ("2.4.1" finds "2.4",
  // "6.2.4" finds "6.2"; a TheRock nightly "7.14.0a20260609" finds "7.14"); for pytorch, `rocm`
  // picks the wheel by its ROCm major.minor (without it, the first of that torch minor).
  // nullptr when the table has none.
  const CodeBuild* Find(std::string_view kind, std::string_view version,
                        std::optional<std::string_view> rocm = {}) const;

  bool operator==(const RuntimeCode&) const = default;

 private:
  friend struct BuiltinData;  // builds the table the build generated (knowledge/builtin_data.h)
  std::vector<CodeBuild> builds_;
};

}  // namespace rocmtune::knowledge
