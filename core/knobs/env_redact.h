// The environment files as `rocmtunectl snapshot` copies them: a bug-report
// world must show the same env findings as the machine, without the values of variables that
// are none of rocmtune's business (tokens, proxies, paths).
//   - Every source rocmtune reads (knobs/env_sources.h) and its own drop-ins, when readable.
//   - Line numbers stay: findings cite file:line. Line N of the copy holds what line N of the
//     original assigned, nothing else; comments, commands and blank lines become blank lines.
//   - ROCm-related names (IsRocmEnvName) keep their values, rewritten as one literal
//     assignment the env readers parse back to the same value (a shell value that needed an
//     expansion stays one, without the expression).
//   - Any other name keeps only its name, in a comment: `# LANG=<redacted>`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sys/root.h"

namespace rocmtune::knobs {

struct RedactedFile {
  std::string path;  // root-relative
  std::string content;
};

// Names in data/env_vars.toml, and names with a prefix of the ROCm/HIP/PyTorch stack.
bool IsRocmEnvName(std::string_view name);

// One source's content, redacted as above.
std::string RedactEnvSource(std::string_view content, bool shell);

// Every readable environment source of `root`, redacted, in reading order.
std::vector<RedactedFile> RedactedEnvFiles(const sys::Root& root);

}  // namespace rocmtune::knobs
