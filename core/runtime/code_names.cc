// How LLVM names AMD GPU targets, and which targets a GPU runs (LLVM docs/AMDGPUUsage.rst,
// "Processors" and "AMDGPU Generic Processors").
#include "runtime/code_names.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

#include "runtime/runtime.h"

namespace rocmtune::runtime {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLowerHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f'); }
bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// A processor name is "gfx", the major version (one digit up to gfx9, two from gfx10 on), the
// minor version (a digit) and the stepping (a hex digit): gfx900, gfx90a, gfx90c, gfx1030,
// gfx1151 (AMDGPUUsage, "AMDGPU Processors"; the same digits as KFD's gfx_target_version).
std::optional<size_t> ProcessorLength(std::string_view s) {
  if (!s.starts_with("gfx") || s.size() < 6) return std::nullopt;
  size_t major_digits = s[3] == '1' ? 2 : 1;
  size_t length = 3 + major_digits + 2;
  if (s.size() < length) return std::nullopt;
  for (size_t i = 3; i < 3 + major_digits + 1; ++i) {
    if (!IsDigit(s[i])) return std::nullopt;
  }
  if (major_digits == 1 && s[3] < '6') return std::nullopt;  // gfx6 (Southern Islands) is the first GCN
  if (!IsLowerHex(s[length - 1])) return std::nullopt;
  return length;
}

// A generic processor: "gfx9-generic", "gfx9-4-generic", "gfx10-1-generic", "gfx10-3-generic",
// "gfx11-generic", "gfx12-generic" (AMDGPUUsage, "AMDGPU Generic Processors").
std::optional<size_t> GenericLength(std::string_view s) {
  if (!s.starts_with("gfx")) return std::nullopt;
  size_t i = 3;
  while (i < s.size() && IsDigit(s[i])) ++i;
  if (i == 3 || i - 3 > 2) return std::nullopt;
  if (i + 2 <= s.size() && s[i] == '-' && IsDigit(s[i + 1]) && i + 2 < s.size() && s[i + 2] == '-') i += 2;
  constexpr std::string_view kSuffix = "-generic";
  if (s.substr(i).starts_with(kSuffix)) return i + kSuffix.size();
  return std::nullopt;
}

struct GenericTarget {
  std::string_view name;
  std::array<std::string_view, 8> processors;
};

// AMDGPUUsage "AMDGPU Generic Processors", column "Supported Processors" (LLVM main; the table
// has grown: gfx1152 and gfx1153 joined gfx11-generic, gfx950 gfx9-4-generic, in later LLVM
// releases). A generic code object carries a version (ELF e_flags, "Generic Processor
// Versioning") and runs on a processor only when that version is at least the one that added
// the processor; the bundle entry id does not carry it, so code built by an older compiler for
// gfx11-generic is taken here to run on gfx1152/gfx1153 too.
constexpr std::array<GenericTarget, 6> kGenericTargets{{
    {"gfx9-generic", {"gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"}},
    {"gfx9-4-generic", {"gfx940", "gfx941", "gfx942", "gfx950"}},
    {"gfx10-1-generic", {"gfx1010", "gfx1011", "gfx1012", "gfx1013"}},
    {"gfx10-3-generic", {"gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"}},
    {"gfx11-generic", {"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"}},
    {"gfx12-generic", {"gfx1200", "gfx1201"}},
}};

std::string_view WithoutFeatures(std::string_view target) { return target.substr(0, target.find(':')); }

}  // namespace

std::optional<std::string> TargetAtStart(std::string_view s) {
  if (auto length = GenericLength(s)) return std::string(s.substr(0, *length));
  if (auto length = ProcessorLength(s)) return std::string(s.substr(0, *length));
  return std::nullopt;
}

std::optional<std::string> BundleEntryTarget(std::string_view id) {
  // clang's offload bundler: "<offload kind>-<target triple>-<target id>", the triple with an
  // empty environment ("amdgcn-amd-amdhsa-"), so "hipv4-amdgcn-amd-amdhsa--gfx1030"; "hip" is
  // code object v2/v3, "hipv4" v4 and later (clang/docs/ClangOffloadBundler.rst). The host
  // entry ("host-x86_64-unknown-linux-gnu-") carries no GPU code.
  std::string_view rest;
  if (id.starts_with("hipv4-")) {
    rest = id.substr(6);
  } else if (id.starts_with("hip-")) {
    rest = id.substr(4);
  } else {
    return std::nullopt;
  }
  if (!rest.starts_with("amdgcn-amd-amdhsa")) return std::nullopt;
  size_t gfx = rest.find("gfx");
  if (gfx == std::string_view::npos) return std::nullopt;
  std::string_view target_id = rest.substr(gfx);
  auto target = TargetAtStart(target_id);
  // The whole target id must be the processor and features after ':' ("gfx90a:sramecc+:xnack-").
  if (!target || WithoutFeatures(target_id) != *target) return std::nullopt;
  return target;
}

std::vector<std::string> TargetsInNames(const std::vector<std::string>& names) {
  std::set<std::string> targets;
  for (std::string_view name : names) {
    for (size_t at = name.find("gfx"); at != std::string_view::npos; at = name.find("gfx", at + 3)) {
      if (at > 0 && IsAlnum(name[at - 1])) continue;
      std::string_view rest = name.substr(at);
      auto target = TargetAtStart(rest);
      if (!target) continue;
      // What may follow: the end, a separator ("_", "-", ".", ":"), or MIOpen's CU count written
      // right after the processor ("gfx90a68.HIP.fdb.txt"), never a letter ("gfx1030abc" is no name).
      if (rest.size() > target->size() && std::isalpha(static_cast<unsigned char>(rest[target->size()]))) continue;
      targets.insert(std::move(*target));
    }
  }
  return {targets.begin(), targets.end()};
}

bool Runs(std::string_view target, std::string_view isa) {
  target = WithoutFeatures(target);
  isa = WithoutFeatures(isa);
  if (target.empty() || isa.empty()) return false;
  if (target == isa) return true;
  for (const GenericTarget& generic : kGenericTargets) {
    if (generic.name != target) continue;
    return std::find(generic.processors.begin(), generic.processors.end(), isa) != generic.processors.end();
  }
  return false;
}

}  // namespace rocmtune::runtime
