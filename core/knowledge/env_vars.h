// ROCm/HIP/PyTorch environment variables rocmtune manages (data/env_vars.toml, compiled in).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace rocmtune::knowledge {

struct EnvVar {
  std::string name;
  std::string check;  // enum, gfx-version, id-list, gfx-list, alloc-conf, uint
  std::vector<std::string> values;
  std::string description;
  std::string source;
};

class EnvVars {
 public:
  static const EnvVars& Builtin();
  static Result<EnvVars> Parse(std::string_view toml, std::string_view origin);
  const EnvVar* Find(std::string_view name) const;
  const std::vector<EnvVar>& vars() const { return vars_; }

 private:
  std::vector<EnvVar> vars_;
};

// Empty when the value passes the variable's check, else why not.
std::string CheckEnvValue(const EnvVar& var, std::string_view value);

}  // namespace rocmtune::knowledge
