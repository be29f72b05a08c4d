// TEMPORARY interface copy (the knowledge branch delivers the real one): the GPU targets a runtime
// build carries, for when the code objects themselves cannot be read (data/runtime_code.toml).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace rocmtune::knowledge {

struct CodeBuild {
  std::string kind, version;
  std::optional<std::string> rocm;
  std::vector<std::string> targets;
  std::string source, note;
};

class RuntimeCode {
 public:
  static const RuntimeCode& Builtin();
  static Result<RuntimeCode> Parse(std::string_view toml);
  const std::vector<CodeBuild>& builds() const { return builds_; }
  const CodeBuild* Find(std::string_view kind, std::string_view version,
                        std::optional<std::string_view> rocm = {}) const;

 private:
  std::vector<CodeBuild> builds_;
};

}  // namespace rocmtune::knowledge
