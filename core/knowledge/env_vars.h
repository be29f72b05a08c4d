// ROCm/HIP/PyTorch environment variables rocmtune manages (data/env_vars.toml, compiled in),
// and the ones `status` flags wherever they are set: variables nothing reads ([[not_read]])
// and debugging switches left on ([[debug]]).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace rocmtune::knowledge {

struct BuiltinData;

struct EnvVar {
  std::string name;
  std::string check;  // enum, gfx-version, id-list, gfx-list, alloc-conf, uint
  std::vector<std::string> values;
  std::string description;
  std::string source;
  // What the reading library does with a value its check refuses: "fails" (the program or the
  // runtime stops: an error) or "ignored" (treated as unset: a warning).
  std::string on_invalid = "ignored";

  bool operator==(const EnvVar&) const = default;
};

// A name people set that no library reads (folklore): `why`, what to set instead (`hint`).
struct NotReadVar {
  std::string name;
  std::string why;
  std::string hint;
  std::string source;

  bool operator==(const NotReadVar&) const = default;
};

// A debugging switch: on for the values in `on` (when given), else for any value but `off`.
struct DebugVar {
  std::string name;
  std::vector<std::string> on;
  std::vector<std::string> off;
  std::string cost;  // what leaving it on costs
  std::string hint;
  std::string source;

  bool operator==(const DebugVar&) const = default;
};

class EnvVars {
 public:
  static const EnvVars& Builtin();
  static Result<EnvVars> Parse(std::string_view toml, std::string_view origin);
  const EnvVar* Find(std::string_view name) const;
  const NotReadVar* FindNotRead(std::string_view name) const;
  const DebugVar* FindDebug(std::string_view name) const;
  const std::vector<EnvVar>& vars() const { return vars_; }
  const std::vector<NotReadVar>& not_read() const { return not_read_; }
  const std::vector<DebugVar>& debug() const { return debug_; }

  bool operator==(const EnvVars&) const = default;

 private:
  friend struct BuiltinData;  // builds the table the build generated (knowledge/builtin_data.h)
  std::vector<EnvVar> vars_;
  std::vector<NotReadVar> not_read_;
  std::vector<DebugVar> debug_;
};

// Empty when the reading library accepts `value`, else why not (the variable's grammar only).
std::string CheckEnvGrammar(const EnvVar& var, std::string_view value);

// Empty when rocmtune may write `value` into its drop-ins: the grammar above, and only
// characters inert unquoted in a shell script and in environment.d.
std::string CheckEnvValue(const EnvVar& var, std::string_view value);

// PYTORCH_*_ALLOC_CONF as PyTorch's allocator config parser reads it (alloc_conf.cc); `name`
// names the variable in the message.
std::string CheckAllocConf(std::string_view name, std::string_view value);

// Whether `value` turns the debugging switch on.
bool DebugSwitchOn(const DebugVar& var, std::string_view value);

}  // namespace rocmtune::knowledge
