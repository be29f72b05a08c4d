// A finding: something rocmtune noticed about this machine or one of its GPUs, what it does to
// ROCm programs (its effect, which decides the compute verdict), and what to do. The one type of
// every layer that makes or renders findings: detection and the knobs' checks make them (kind
// and effect left for diagnose::Classify), the assessment (diagnose/assess.h) classifies and adds
// its own, and `status`, `doctor`, `check-compute`, `verify` and rocmtuned render them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rocmtune::detect {

enum class Severity { kInfo, kWarning, kError };

inline std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "info";
}

// Where a finding comes from: detection, a setting in a file, the caller's environment, the journal, one of the machine
// checks, the ROCm support table, rocm-smi-lib's live facts, the known-issue base, a crash log.
// kCaller: the environment of the one who asks (doctor, check-compute): its process's variables
// and its user's session and shell files; status and rocmtuned, which answer for no one user, have none.
enum class Kind {
  kDetection,
  kSetting,
  kEnvironment,
  kCaller,
  kFile,
  kJournal,
  kMachine,
  kSupport,
  kLive,
  kKnownIssue,
  kLog,
  kRuntime,  // the ROCm runtime the program loads and the GPU code it carries (diagnose/code_checks.cc)
};
std::string_view KindName(Kind kind);

// What it does to a ROCm program on the GPUs it concerns (check-compute's question):
enum class Effect {
  kNone,         // nothing a program meets (advice, hygiene, the past)
  kCrash,        // the program dies or computes wrong results, for the finding's workloads
  kNoGpu,        // ROCm programs cannot use the GPU at all
  kLimits,       // programs run with less than the hardware has
  kUnsupported,  // the runtime the program loads carries no code for the GPU: its kernels cannot start
  kUnknown,      // what decides could not be determined (no runtime found, its code unreadable)
};
std::string_view EffectName(Effect effect);

struct Fix {
  std::string text = {};  // what to do, one sentence a person can act on; may be empty
  std::string profile = {};
  std::vector<std::string> set = {};
  std::vector<std::string> unset = {};
  std::string rocm = {};
  std::string kernel = {};
  std::string none = {};
};

// A line of a file where a finding's setting is written (root-relative path, 1-based line; 0: no line).
struct Place {
  std::string file;
  int line = 0;
  bool operator==(const Place&) const = default;
};

// Made with designated initializers in this order, naming only what it has (every member has a
// default, so -Wmissing-field-initializers stays quiet), e.g.
// {.id = FindingName(FindingId::kDetectReadError), .severity = Severity::kWarning, .subject = path, .what = why}.
struct Finding {
  std::string id = {};  // stable, dotted: "detect.read-error", "gpu.not-amdgpu", "issue.<known issue id>"
  Severity severity = Severity::kInfo;
  Kind kind = Kind::kDetection;
  Effect effect = Effect::kNone;
  std::vector<std::string> workloads = {};  // kCrash and kUnsupported only; empty: every workload
  // The GPU (id) it concerns; empty: every GPU of the machine (a variable every program reads).
  std::string gpu = {};
  std::string subject = {};  // a GPU id, a variable, a path; may be empty
  std::string what = {};     // one sentence a person can act on (status JSON `message`)
  std::string why = {};
  Fix fix = {};                           // fix.text: status JSON `hint`
  std::vector<std::string> sources = {};  // the public citations that make it true (status JSON `source`)
  std::string confidence = {};            // known issues only
  std::vector<std::string> evidence = {};
  std::vector<std::string> symptoms = {};  // the log lines' matches (--log)
  // Where a setting that causes it is written: root-relative, as the root reads it, 1-based line;
  // empty / 0 when the finding is not about a line of a file.
  std::string file = {};
  int line = 0;
  // Every place that writes the same setting (file/line first): the boot loader's file and
  // /proc/cmdline, or two drop-ins. Empty when file is; one entry when only file/line does.
  std::vector<Place> places = {};

  // Whether a program running `workload` (knowledge::kWorkloads or "any") on `gpu_id` meets it.
  bool Concerns(std::string_view gpu_id) const { return gpu.empty() || gpu == gpu_id; }
  bool Hits(std::string_view workload) const;
  bool Problem() const { return severity != Severity::kInfo; }
};

// The citations of a finding as one text ("; " between them): what a single `source` field says.
std::string SourceText(const Finding& finding);
// A finding's sources from one citation that may be empty (none then).
std::vector<std::string> SourcesOf(std::string source);

}  // namespace rocmtune::detect
