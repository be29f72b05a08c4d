// `doctor --log`: the crash log's matches for the GPUs it names (diagnose/crash_log.h). Known issues
// whose rule holds for such a GPU and whose symptom the log shows; missing-code errors linked to
// the GPU's support finding; and, when the log shows a crash no match explains, a warning that
// says what was seen and what to collect, so a crash never ends in "Nothing wrong found".
#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "detect/finding_ids.h"
#include "diagnose/assess.h"
#include "diagnose/checks.h"
#include "diagnose/crash_log.h"
#include "diagnose/known_issue_eval.h"
#include "knowledge/known_issues.h"

namespace rocmtune::diagnose {

namespace {

using detect::Severity;

constexpr std::string_view kPytorchTroubleshooting =
    "ROCm documentation, PyTorch on ROCm troubleshooting (hipErrorNoBinaryForGPU: the installed PyTorch or its "
    "libraries do not support the current GPU; check the gfx target with rocminfo and roc-obj-ls)";
constexpr std::string_view kCodeObjectSource =
    "ROCm/clr hipamd/src/hip_code_object.cpp (hipErrorNoBinaryForGpu: Unable to find code object for all current "
    "devices, then each device's target)";

// Causes particular to the GPU (a gfx rule) before general explanations, then the graver first.
void RankLogMatches(std::vector<IssueMatch>& matches) {
  std::stable_sort(matches.begin(), matches.end(), [](const IssueMatch& a, const IssueMatch& b) {
    bool a_gpu = !a.issue->when.gfx.empty(), b_gpu = !b.issue->when.gfx.empty();
    if (a_gpu != b_gpu) return a_gpu;
    return a.issue->severity > b.issue->severity;  // IssueSeverity is ordered, graver greater
  });
}

// Whether doctor's finding `f` is the ROCm support verdict of a GPU: the support check's own
// finding, or a known issue that supersedes rocm.gpu-not-supported (rdna1-not-supported).
bool IsSupportFinding(const Finding& f) {
  const auto id = detect::ParseFindingId(f.id);
  if (id == FindingId::kRocmGpuSupported || id == FindingId::kRocmGpuDeprecated ||
      id == FindingId::kRocmGpuNotSupported || id == FindingId::kRuntimeNoCode || id == FindingId::kRuntimeCode)
    return true;
  if (!f.id.starts_with("issue.")) return false;
  const knowledge::KnownIssue* issue = knowledge::KnownIssues::Builtin().Find(f.id.substr(6));
  return issue && std::find(issue->supersedes.begin(), issue->supersedes.end(),
                            FindingName(FindingId::kRocmGpuNotSupported)) != issue->supersedes.end();
}

// The support finding of `gpu` (SupportChecks gives one per physical GPU, under its first
// partition's id), the graver one when a known issue and the check both speak.
const Finding* SupportFindingOf(const detect::Gpu& gpu, const std::vector<detect::Gpu>& gpus,
                                const std::vector<Finding>& findings) {
  std::set<std::string> ids = {gpu.id};
  for (const detect::Gpu& g : gpus)
    if (!gpu.physical_id.empty() && g.physical_id == gpu.physical_id) ids.insert(g.id);
  const Finding* best = nullptr;
  for (const Finding& f : findings)
    if (ids.count(f.subject) > 0 && IsSupportFinding(f) && (!best || f.severity > best->severity)) best = &f;
  return best;
}

Finding MissingCode(const detect::Gpu& gpu, const CrashLogReading& reading, const std::vector<detect::Gpu>& gpus,
                    const std::vector<Finding>& findings) {
  std::string errors = fmt::format("{}", fmt::join(reading.missing_code, ", "));
  std::string gfx = gpu.gfx_target.value_or("this GPU's gfx target");
  Finding f = MakeFinding(FindingName(FindingId::kLogMissingCodeObject), Severity::kWarning, gpu.id,
                          fmt::format("The program found no GPU code for {} ({})", gfx, errors), "");
  for (const std::string& e : reading.missing_code) f.evidence.push_back(fmt::format("the log shows {}", e));
  f.symptoms = reading.missing_code;
  const Finding* support = gpu.id.empty() ? nullptr : SupportFindingOf(gpu, gpus, findings);
  if (support && support->severity != Severity::kInfo) {
    // The GPU's own support finding says why and what to do: its fix is this error's fix.
    f.why = fmt::format(
        "HIP loads a code object built for the GPU's gfx target and finds none; doctor's finding {} explains why: {}",
        support->id, support->what);
    f.evidence.push_back(fmt::format("doctor's finding {} [{}]: {}", support->id, support->subject, support->what));
    f.fix = support->fix;
    f.sources = support->sources;
  } else {
    f.why = support ? fmt::format("{} ({}), so the program or one of its libraries was built without code for {}",
                                  support->what, support->id, gfx)
                    : fmt::format(
                          "HIP loads a code object built for {} and the program or one of its libraries "
                          "carries none; rocmtune could not judge ROCm's support for it",
                          gfx);
    if (support)
      f.evidence.push_back(fmt::format("doctor's finding {} [{}]: {}", support->id, support->subject, support->what));
    f.fix.text = fmt::format(
        "Use a build of the program and its libraries made for {0} (for PyTorch, a wheel for your ROCm release whose "
        "torch.cuda.get_arch_list() lists {0}), or build it with --offload-arch={0} (PYTORCH_ROCM_ARCH={0} for "
        "PyTorch); an HSA_OVERRIDE_GFX_VERSION naming another target makes HIP look for that target's code instead",
        gfx);
  }
  f.sources.emplace_back(kCodeObjectSource);
  f.sources.emplace_back(kPytorchTroubleshooting);
  return f;
}

// A log naming only GPUs that are not here (a KFD node or PCI address this machine does not
// have) was most likely taken on another machine: no GPU here is blamed for it.
Finding OtherGpus(const CrashLogReading& reading) {
  Finding f = MakeFinding(
      FindingName(FindingId::kLogOtherGpu), Severity::kInfo, "",
      "The log names GPUs that are not on this machine; no GPU here is blamed for it",
      "The KFD node ids and PCI addresses in the log are none of this machine's GPUs: the log may come from "
      "another machine, or from before a GPU was moved",
      "Run `rocmtunectl doctor --log FILE` on the machine the log comes from");
  for (const LogGpuRef& r : reading.refs)
    if (r.judged && r.gpus.empty()) f.evidence.push_back(fmt::format("the log names {}, no GPU here", r.text));
  return f;
}

Finding Unexplained(const std::string& gpu, const CrashLogReading& reading) {
  Finding f = MakeFinding(
      FindingName(FindingId::kLogUnexplainedCrash), Severity::kWarning, gpu,
      "The log shows a crash that no known issue explains",
      "rocmtune knows no cause for this crash on this GPU and machine; it may be a bug of the program, a library, "
      "the driver or the firmware",
      "Right after the crash, run `rocmtunectl snapshot --output FILE` and keep it with the full log, the kernel's "
      "log of that boot (`journalctl -k -b`) and the program's ROCm version (for PyTorch, torch.version.hip); to find "
      "the faulting kernel, run the program again with HSA_TOOLS_LIB=librocm-debug-agent.so.2 (the ROCm debug agent "
      "prints the wave state at the fault); report it with those to https://github.com/ROCm/ROCm/issues");
  for (const CrashSign* s : reading.crash) {
    f.evidence.push_back(fmt::format("the log shows {}", s->what));
    f.sources.emplace_back(s->source);
  }
  for (const LogGpuRef& r : reading.refs)
    if (!gpu.empty() && std::find(r.gpus.begin(), r.gpus.end(), gpu) != r.gpus.end())
      f.evidence.push_back(fmt::format("the log names this GPU as {}", r.text));
  f.sources.emplace_back("ROCm/rocr_debug_agent README (HSA_TOOLS_LIB=librocm-debug-agent.so.2)");
  return f;
}

}  // namespace

void AddLogMatches(const sys::Root& root, std::string_view log, const std::vector<knobs::EnvSetting>& caller_env,
                   Assessment& assessment) {
  const detect::Inventory& inventory = assessment.inventory;
  CrashLogReading reading = ReadCrashLog(log, inventory.gpus);
  std::vector<detect::Gpu> scope;  // the GPUs the log's matches may concern
  for (const detect::Gpu& g : inventory.gpus)
    if (std::find(reading.gpus.begin(), reading.gpus.end(), g.id) != reading.gpus.end()) scope.push_back(g);
  if (scope.empty() && !reading.NamesOnlyOtherGpus()) scope = inventory.gpus;  // names none: every GPU here
  if (scope.empty()) scope.emplace_back();  // no GPU to blame: the issues that name none

  std::vector<IssueMatch> matches;
  const knowledge::KnownIssues& issues = knowledge::KnownIssues::Builtin();
  // The program's environment (the assessment's view) with the caller's on top when the
  // assessment was made without it (a daemon's report explained for a user).
  ProgramView view = assessment.program;
  for (const knobs::EnvSetting& s : caller_env)
    if (s.value) view.env[s.name] = *s.value;
  IssueInputs machine = ProgramInputs(inventory, view);
  machine.system_memory = assessment.system_memory;
  for (const detect::Gpu& gpu : scope)
    for (IssueMatch& m : EvaluateKnownIssues(issues, gpu, GpuInputs(root, machine, gpu), log))
      matches.push_back(std::move(m));
  RankLogMatches(matches);

  std::vector<Finding>& out = assessment.log_matches;
  if (!reading.missing_code.empty())
    for (const detect::Gpu& gpu : scope) out.push_back(MissingCode(gpu, reading, inventory.gpus, assessment.findings));
  for (const IssueMatch& m : matches) out.push_back(IssueFinding(m));
  if (reading.NamesOnlyOtherGpus()) out.push_back(OtherGpus(reading));
  bool explained = std::any_of(out.begin(), out.end(), [](const Finding& f) { return f.severity != Severity::kInfo; });
  if (!reading.crash.empty() && !explained) {
    if (reading.gpus.empty()) out.push_back(Unexplained("", reading));
    for (const std::string& gpu : reading.gpus) out.push_back(Unexplained(gpu, reading));
  }
  assessment.log_names = std::move(reading.refs);
  assessment.log_gpus = std::move(reading.gpus);
}

bool IsLogCause(const Finding& f) {
  return f.id != FindingName(FindingId::kLogUnexplainedCrash) && f.id != FindingName(FindingId::kLogOtherGpu);
}

}  // namespace rocmtune::diagnose
