#include "knobs/env_redact.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "knobs/env_sources.h"
#include "knowledge/env_vars.h"
#include "util/text.h"

namespace rocmtune::knobs {
namespace {

constexpr size_t kMaxSourceBytes = 1 << 20;  // as env_sources.cc reads them

// The stack's own prefixes: ROCr/libhsakmt, HIP/CLR, ROCm libraries, PyTorch, MIOpen and the
// math libraries. Their values say how the GPU stack is set up; users attach them on purpose.
constexpr std::string_view kRocmPrefixes[] = {
    "HSA_", "HSAKMT_", "HIP_",     "HIPBLASLT_", "ROCR_",      "ROC_",    "ROCM_",    "ROCBLAS_", "AMD_",
    "GPU_", "HCC_",    "PYTORCH_", "TORCH_ROCM", "TORCH_BLAS", "MIOPEN_", "TENSILE_", "RCCL_",    "MIGRAPHX_"};

std::string ShellQuoted(std::string_view value) {
  std::string out = "'";
  for (char c : value) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// One output line for the assignments that start on it.
std::string Line(const std::vector<const EnvSetting*>& settings, bool shell) {
  std::vector<std::string> kept, redacted;
  for (const EnvSetting* s : settings) {
    if (!IsRocmEnvName(s->name)) {
      redacted.push_back(fmt::format("{}=<redacted>", s->name));
    } else if (!shell) {
      // environment.d / pam_env: one level of matching quotes is removed, so quoting keeps the value.
      kept.push_back(fmt::format("{}=\"{}\"", s->name, s->value.value_or("")));
    } else if (s->value) {
      kept.push_back(fmt::format("export {}={}", s->name, ShellQuoted(*s->value)));
    } else {
      // Computed by the shell on the machine: it stays computed, the expression is not copied.
      kept.push_back(fmt::format("export {}=\"$ROCMTUNE_SNAPSHOT_COMPUTED\"", s->name));
    }
  }
  std::string line;
  for (const std::string& k : kept) line += fmt::format("{}{}", line.empty() ? "" : "; ", k);
  if (!redacted.empty()) {
    std::string names;
    for (const std::string& r : redacted) names += fmt::format("{}{}", names.empty() ? "" : " ", r);
    line += fmt::format("{}# {}", line.empty() ? "" : " ", names);
  }
  return line;
}

}  // namespace

bool IsRocmEnvName(std::string_view name) {
  const knowledge::EnvVars& table = knowledge::EnvVars::Builtin();
  if (table.Find(name) || table.FindNotRead(name) || table.FindDebug(name)) return true;
  return std::any_of(std::begin(kRocmPrefixes), std::end(kRocmPrefixes),
                     [&](std::string_view p) { return name.starts_with(p); });
}

std::string RedactEnvSource(std::string_view content, bool shell) {
  std::vector<EnvSetting> settings = ParseEnvSource(content, shell);
  std::map<int, std::vector<const EnvSetting*>> by_line;
  for (const EnvSetting& s : settings) by_line[s.line].push_back(&s);
  const int lines = static_cast<int>(text::SplitLines(content).size());
  std::string out;
  for (int n = 1; n <= lines; ++n) {
    auto it = by_line.find(n);
    if (it == by_line.end()) {
      out += '\n';
      continue;
    }
    std::string line = Line(it->second, shell);
    out += line + '\n';
    // A value spanning lines (a quoted newline) spanned them in the original too: skip as
    // many, so the lines after it keep their numbers.
    n += static_cast<int>(std::count(line.begin(), line.end(), '\n'));
  }
  return out;
}

std::vector<RedactedFile> RedactedEnvFiles(const sys::Root& root) {
  std::vector<EnvSource> sources = ForeignEnvSources(root);
  for (EnvSource& s : OwnedEnvSources()) sources.push_back(std::move(s));
  std::vector<RedactedFile> out;
  for (const EnvSource& source : sources) {
    auto content = root.ReadFile(source.path, kMaxSourceBytes);
    if (!content) continue;  // missing or unreadable: the snapshot counts what it could not read
    out.push_back({source.path, RedactEnvSource(*content, source.shell)});
  }
  return out;
}

}  // namespace rocmtune::knobs
