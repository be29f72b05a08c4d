#include "api/check_compute.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/known_issue_eval.h"
#include "api/status.h"
#include "knowledge/known_issues.h"

namespace rocmtune::api {

namespace {

using json = nlohmann::ordered_json;
using knowledge::Outcome;

// The outcome of a note from the ROCm support table (not a known issue's outcome).
constexpr std::string_view kUnsupported = "unsupported";

// Longer than any GPU id, card or render node name; such an argument is not echoed back.
constexpr size_t kMaxName = 64;

bool Printable(std::string_view s) {
  return s.size() <= kMaxName && std::all_of(s.begin(), s.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

Result<std::string> CheckWorkload(std::string_view workload) {
  if (workload.empty() || workload == knowledge::kWorkloadAny) return std::string(knowledge::kWorkloadAny);
  if (knowledge::IsWorkload(workload)) return std::string(workload);
  return Fail(ErrorCode::kInvalidArgument,
              fmt::format("unknown workload {}: use one of {}, {}",
                          Printable(workload) ? fmt::format("'{}'", workload) : std::string("(not a name)"),
                          fmt::join(knowledge::kWorkloads, ", "), knowledge::kWorkloadAny));
}

bool Names(const detect::Gpu& g, std::string_view device) {
  return g.id == device || (g.card && *g.card == device) || (g.render_node && *g.render_node == device);
}

std::string GpuList(const std::vector<detect::Gpu>& gpus) {
  std::vector<std::string> ids;
  ids.reserve(gpus.size());
  for (const detect::Gpu& g : gpus) ids.push_back(g.card ? fmt::format("{} ({})", g.id, *g.card) : g.id);
  return ids.empty() ? "none" : fmt::format("{}", fmt::join(ids, ", "));
}

// Detection's own findings about the GPU at warning or above: it has no ROCm ISA, or its
// target is unknown. Programs cannot run ROCm code on it (status's "gpu." findings).
void IdentityReasons(const detect::Inventory& inventory, ComputeGpu& out) {
  for (const detect::Finding& f : inventory.findings)
    if (f.id.starts_with("gpu.") && f.subject == out.gpu.id && f.severity != detect::Severity::kInfo)
      out.reasons.push_back({knowledge::OutcomeName(Outcome::kNoGpu), StatusFinding(f)});
}

// The known issues that hold; returns the finding ids they supersede (as doctor drops them).
std::set<std::string> IssueReasons(const sys::Root& root, const detect::Inventory& inventory, std::string_view workload,
                                   ComputeGpu& out) {
  std::set<std::string> superseded;
  IssueInputs inputs = MachineInputs(root, inventory, out.gpu);
  for (const IssueMatch& m : EvaluateKnownRisks(knowledge::KnownIssues::Builtin(), out.gpu, inputs)) {
    const knowledge::KnownIssue& issue = *m.issue;
    superseded.insert(issue.supersedes.begin(), issue.supersedes.end());
    ComputeReason reason{knowledge::OutcomeName(issue.outcome), IssueFinding(m)};
    switch (issue.outcome) {
      case Outcome::kNoGpu: out.reasons.push_back(std::move(reason)); break;
      case Outcome::kCrash:
        if (issue.Hits(workload)) out.reasons.push_back(std::move(reason));
        break;
      // A limit only a log can show is not worth a note before there is one.
      case Outcome::kLimits:
        if (!issue.when.log_only) out.notes.push_back(std::move(reason));
        break;
      case Outcome::kExplains: break;
    }
  }
  return superseded;
}

// The installed ROCm release's word on the GPU (doctor's rocm.gpu-not-supported and
// rocm.gpu-deprecated) as a note: its prebuilt libraries may carry no code for the GPU, which a
// program meets as an error (hipErrorNoBinaryForGpu), not as a crash, and some do run.
void SupportNotes(const std::vector<DoctorFinding>& support, const std::set<std::string>& superseded, ComputeGpu& out) {
  for (const DoctorFinding& f : support)
    if (f.subject == out.gpu.id && f.severity != detect::Severity::kInfo && !superseded.contains(f.id))
      out.notes.push_back({kUnsupported, f});
}

std::string NoGpuReason(const detect::Inventory& inventory) {
  std::vector<std::string> seen;
  for (const detect::Finding& f : inventory.findings)
    if (f.id.starts_with("gpu.")) seen.push_back(f.message);
  std::string reason = "no AMD GPU driven by amdgpu was found";
  if (!seen.empty()) reason += fmt::format(" ({})", fmt::join(seen, "; "));
  return reason;
}

json OrNull(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json ReasonJson(const ComputeReason& r) {
  const DoctorFinding& f = r.finding;
  return {{"id", f.id},           {"outcome", r.outcome},   {"title", f.what},
          {"why", OrNull(f.why)}, {"evidence", f.evidence}, {"fix", DoctorFixJson(f.fix)},
          {"sources", f.sources}};
}

json ReasonsJson(const std::vector<ComputeReason>& reasons) {
  json out = json::array();
  for (const ComputeReason& r : reasons) out.push_back(ReasonJson(r));
  return out;
}

}  // namespace

bool ComputeReport::safe() const {
  return !gpus.empty() && std::all_of(gpus.begin(), gpus.end(), [](const ComputeGpu& g) { return g.safe(); });
}

Result<ComputeReport> CheckCompute(const sys::Root& root, std::string_view workload, std::string_view device) {
  return CheckCompute(root, detect::Detect(root), workload, device);
}

Result<ComputeReport> CheckCompute(const sys::Root& root, detect::Inventory inventory, std::string_view workload,
                                   std::string_view device) {
  auto name = CheckWorkload(workload);
  if (!name) return tl::unexpected(name.error());
  if (!device.empty() && !Printable(device))
    return Fail(ErrorCode::kInvalidArgument, "the device is not a GPU id, card or render node name");
  // Known issues and the support table only: rocm-smi-lib's live values change no answer here.
  auto status = Status(root, std::move(inventory), {.live_facts = false});
  if (!status) return tl::unexpected(status.error());
  const detect::Inventory& inv = status->inventory;
  ComputeReport report{*name, std::string(device), {}, {}};
  const std::vector<DoctorFinding> support = SupportChecks(inv);
  for (const detect::Gpu& g : inv.gpus) {
    if (!device.empty() && !Names(g, device)) continue;
    ComputeGpu answer{g, {}, {}};
    IdentityReasons(inv, answer);
    SupportNotes(support, IssueReasons(root, inv, report.workload, answer), answer);
    report.gpus.push_back(std::move(answer));
  }
  if (!device.empty() && report.gpus.empty())
    return Fail(
        ErrorCode::kNotFound,
        fmt::format("no GPU '{}' here (GPUs: {}); name one by its id, card or render node", device, GpuList(inv.gpus)));
  if (inv.gpus.empty()) report.reason = NoGpuReason(inv);
  return report;
}

json CheckComputeJson(const ComputeReport& report) {
  json gpus = json::array();
  for (const ComputeGpu& g : report.gpus)
    gpus.push_back({{"id", g.gpu.id},
                    {"name", g.gpu.marketing_name},
                    {"card", g.gpu.card ? json(*g.gpu.card) : json(nullptr)},
                    {"gfx_target", g.gpu.gfx_target ? json(*g.gpu.gfx_target) : json(nullptr)},
                    {"safe", g.safe()},
                    {"reasons", ReasonsJson(g.reasons)},
                    {"notes", ReasonsJson(g.notes)}});
  return {{"schema", "rocmtune.check_compute.v1"}, {"safe", report.safe()}, {"workload", report.workload},
          {"device", OrNull(report.device)},       {"gpus", gpus},          {"reason", OrNull(report.reason)}};
}

}  // namespace rocmtune::api
