// One finding of the assessment (diagnose/assess.h): something rocmtune noticed about this
// machine or one of its GPUs, what it does to ROCm programs (its effect, which decides the
// compute verdict), and what to do. `status`, `doctor`, `check-compute` and rocmtuned render
// these; nothing above this layer decides again whether something is wrong.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "detect/finding.h"
#include "detect/finding_ids.h"

namespace rocmtune::diagnose {

using detect::FindingId;
using detect::FindingName;
using detect::Severity;

struct Fix {
  std::string text;
  std::string profile;
  std::vector<std::string> set;
  std::vector<std::string> unset;
  std::string rocm;
  std::string kernel;
  std::string none;
};

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

// A line of a file where a finding's setting is written (root-relative path, 1-based line; 0: no line).
struct Place {
  std::string file;
  int line = 0;
  bool operator==(const Place&) const = default;
};

struct Finding {
  std::string id;  // "issue.<known issue id>", or a check's or detection's id
  Severity severity = Severity::kInfo;
  Kind kind = Kind::kDetection;
  Effect effect = Effect::kNone;
  std::vector<std::string> workloads;  // kCrash and kUnsupported only; empty: every workload
  // The GPU (id) it concerns; empty: every GPU of the machine (a variable every program reads).
  std::string gpu;
  std::string subject;  // a GPU id, a variable, a path
  std::string what;
  std::string why;
  Fix fix;
  std::vector<std::string> sources;
  std::string confidence;  // known issues only
  std::vector<std::string> evidence;
  std::vector<std::string> symptoms;  // the log lines' matches (--log)
  std::string file;                   // root-relative, as the root reads it; with line: where it is written
  int line = 0;
  // Every place that writes the same setting (file/line first): the boot loader's file and
  // /proc/cmdline, or two drop-ins. Empty when file is; one entry when only file/line does.
  std::vector<Place> places;

  // Whether a program running `workload` (knowledge::kWorkloads or "any") on `gpu_id` meets it.
  bool Concerns(std::string_view gpu_id) const { return gpu.empty() || gpu == gpu_id; }
  bool Hits(std::string_view workload) const;
  bool Problem() const { return severity != Severity::kInfo; }
};

// A finding of detection or of the knobs' checks (detect::Finding), of `kind`.
Finding FromDetect(const detect::Finding& finding, Kind kind, Effect effect = Effect::kNone, std::string gpu = "");
// One finding per fact: findings with the same id, GPU, subject, severity and words, which
// differ only in where the setting is written (a boot loader's file and /proc/cmdline), become
// the first of them with every place in `places`; the fix of a file that can be edited wins over
// /proc/cmdline's. Order is kept. Every finding with a file gets its places.
void MergeSameFacts(std::vector<Finding>& findings);

// A finding of one of the checks (machine_checks, live_checks, support_checks).
Finding MakeFinding(std::string id, Severity severity, std::string subject, std::string what, std::string why,
                    std::string fix = "", std::vector<std::string> sources = {});

}  // namespace rocmtune::diagnose
