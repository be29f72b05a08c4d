// Kernel command-line options rocmtune validates (data/kernel_options.toml, compiled in).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace rocmtune::knowledge {

struct BuiltinData;

struct KernelOption {
  std::string name;
  std::vector<std::string> values;            // accepted values (words)
  bool list = false;                          // comma-separated words allowed
  std::map<std::string, std::string> refuse;  // value -> why it is wrong
  std::string description;
  std::string source;

  bool operator==(const KernelOption&) const = default;
};

class KernelOptions {
 public:
  static const KernelOptions& Builtin();
  static Result<KernelOptions> Parse(std::string_view toml, std::string_view origin);
  const KernelOption* Find(std::string_view name) const;
  const std::vector<KernelOption>& options() const { return options_; }

  bool operator==(const KernelOptions&) const = default;

 private:
  friend struct BuiltinData;  // builds the table the build generated (knowledge/builtin_data.h)
  std::vector<KernelOption> options_;
};

// Empty string when `value` is acceptable for `option`, else why not.
std::string CheckKernelOptionValue(const KernelOption& option, std::string_view value);

}  // namespace rocmtune::knowledge
