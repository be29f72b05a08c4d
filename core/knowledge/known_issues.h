// The known-issue base (data/known_issues.toml): failures ROCm users hit, each with the GPUs and
// versions it concerns, the crash-log lines that show it, a declarative rule over the machine
// (every key of [issue.when] must hold) and the fix that works. Parsing only; matching an
// inventory against the rules is diagnose/known_issue_eval.h (knowledge depends on nothing).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace rocmtune::knowledge {

struct BuiltinData;

// A dotted numeric version ("6.2", "5.3.0", "6.14.0-24-generic" compares as 6.14.0).
struct Version {
  std::vector<int> parts;  // trailing zeros dropped, so 6.2 == 6.2.0
  auto operator<=>(const Version&) const = default;
};
std::optional<Version> ParseVersion(std::string_view text);

// What happens to a program on a GPU where the issue holds (check-compute's answer).
enum class Outcome {
  kCrash,     // the program dies (HIP aborts the process on a memory access fault)
  kNoGpu,     // ROCm programs do not get to use the GPU at all
  kLimits,    // programs run with less than the hardware has (memory, speed)
  kExplains,  // names the cause of a log line; no risk by itself
};
std::string_view OutcomeName(Outcome outcome);  // as data/known_issues.toml spells it

// How grave an issue is (ordered: a graver one compares greater) and how sure the base is of it;
// parsed once from data/known_issues.toml, named as it spells them.
enum class IssueSeverity { kInfo, kWarning, kError };
enum class Confidence { kHigh, kMedium, kLow };
std::string_view IssueSeverityName(IssueSeverity severity);
std::optional<IssueSeverity> ParseIssueSeverity(std::string_view name);
std::string_view ConfidenceName(Confidence confidence);
std::optional<Confidence> ParseConfidence(std::string_view name);

// The workloads a known issue may be limited to (`workloads`) and check-compute may be asked
// about; "any" (the question's default) means every kind of program, and is not an issue's value
// (an issue without `workloads` hits every workload).
inline constexpr std::string_view kWorkloadAny = "any";
inline constexpr std::array<std::string_view, 2> kWorkloads = {"conv", "gemm"};
bool IsWorkload(std::string_view name);

// Machine facts a rule may name, computed above this layer (diagnose/known_issue_eval.cc).
inline constexpr std::string_view kFactGttAtMostHalfRam = "gtt-at-most-half-ram";
inline constexpr std::string_view kFactGpuNotInKfd = "gpu-not-in-kfd";
// The GPU runs MES firmware 0x83 (linux-firmware 20251125), reverted for Strix (ROCm#5724).
inline constexpr std::string_view kFactMesFirmware0x83 = "mes-firmware-0x83";
// The GPU's KFD node properties have no cwsr_size: the kernel lacks AMD's KFD fixes for Strix Halo
// (drm/amdkfd "Export the cwsr_size and ctl_stack_size to userspace", in 6.18.4 and the Ubuntu
// HWE/OEM kernels AMD lists). Unknown (no match) when the properties cannot be read.
inline constexpr std::string_view kFactKfdWithoutCwsrSize = "kfd-without-cwsr-size";
// amdgpu.cwsr_enable is 0 while the KFD node has cwsr_size (the fixed kernel).
inline constexpr std::string_view kFactCwsrDisabledWithKfdFix = "cwsr-disabled-with-kfd-fix";

struct IssueRule {
  std::vector<std::string> gfx;  // any of; empty: every GPU
  std::optional<bool> apu;
  std::optional<Version> rocm_min, rocm_below;  // the installed ROCm (/opt/rocm/.info/version)
  std::vector<Version> rocm_lines;              // its major.minor is one of these ("7.1": 7.1.x); empty: any
  std::optional<Version> kernel_min, kernel_below;
  // Variable -> value in the environment; a trailing '*' matches any rest ("10.3.*").
  std::map<std::string, std::string> env;
  std::vector<std::string> facts;  // every one must hold
  bool log_only = false;           // only a crash log (doctor --log) can show it

  bool operator==(const IssueRule&) const = default;
};

struct IssueFix {
  std::string text;  // what to do, in words
  std::string profile;
  std::vector<std::string> set;    // knob assignments "env.X=1", as `rocmtunectl set` takes them
  std::vector<std::string> unset;  // knob keys
  std::string rocm;                // a ROCm version that fixes it (">= 7.0")
  std::string kernel;
  std::string none;  // no fix on this hardware, and what to do instead

  bool operator==(const IssueFix&) const = default;
};

struct KnownIssue {
  std::string id;
  std::string title;
  std::string why;
  IssueSeverity severity = IssueSeverity::kInfo;
  Confidence confidence = Confidence::kHigh;
  Outcome outcome = Outcome::kExplains;
  std::vector<std::string> workloads;  // of kWorkloads; empty: every workload
  std::vector<std::string> symptoms;   // exact substrings of crash logs
  // A log matches only when it also shows one of these (empty: any symptom is enough): a
  // generic line ("Memory access fault by GPU node-") alone does not make it this issue.
  std::vector<std::string> requires_symptom;
  IssueRule when;
  IssueFix fix;
  std::vector<std::string> sources;
  // Ids of doctor's generic findings this issue says better for the GPU it matches (e.g.
  // "rocm.gpu-not-supported"): doctor then shows the issue and drops them for that GPU.
  std::vector<std::string> supersedes;

  // Whether a program running `workload` (kWorkloads or kWorkloadAny) meets it.
  bool Hits(std::string_view workload) const;

  bool operator==(const KnownIssue&) const = default;
};

class KnownIssues {
 public:
  static const KnownIssues& Builtin();
  // Refuses unknown keys in [issue.when] and [issue.fix], an entry without sources, symptoms,
  // fix or outcome, versions that do not parse and workloads outside kWorkloads: a rule that says
  // less than it was written to say would match machines it was not meant for. `workloads` is
  // for crashes only (a GPU programs cannot use, or a limit, concerns every workload), and
  // fix.none (no fix on this hardware) only for an issue whose outcome is no-gpu.
  static Result<KnownIssues> Parse(std::string_view toml_text, std::string_view origin);
  const std::vector<KnownIssue>& issues() const { return issues_; }
  const KnownIssue* Find(std::string_view id) const;

  bool operator==(const KnownIssues&) const = default;

 private:
  friend struct BuiltinData;  // builds the table the build generated (knowledge/builtin_data.h)
  std::vector<KnownIssue> issues_;
};

}  // namespace rocmtune::knowledge
