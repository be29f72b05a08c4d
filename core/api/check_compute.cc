#include "api/check_compute.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "diagnose/verdict.h"
#include "knowledge/known_issues.h"
#include "util/json_text.h"

namespace rocmtune::api {

namespace {

using json = nlohmann::ordered_json;

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

std::string NoGpuReason(const detect::Inventory& inventory) {
  std::vector<std::string> seen;
  for (const detect::Finding& f : inventory.findings)
    if (f.id.starts_with("gpu.")) seen.push_back(f.what);
  std::string reason = "no AMD GPU driven by amdgpu was found";
  if (!seen.empty()) reason += fmt::format(" ({})", fmt::join(seen, "; "));
  return reason;
}

json ReasonJson(const ComputeReason& r) {
  const DoctorFinding& f = r.finding;
  return {{"id", f.id},
          {"outcome", r.outcome},
          {"title", f.what},
          {"why", StringOrNull(f.why)},
          {"evidence", f.evidence},
          {"fix", DoctorFixJson(f.fix)},
          {"sources", f.sources},
          {"file", StringOrNull(f.file)},
          {"line", f.line > 0 ? json(f.line) : json(nullptr)},
          {"places", PlacesJson(f)}};
}

json ReasonsJson(const std::vector<ComputeReason>& reasons) {
  json out = json::array();
  for (const ComputeReason& r : reasons) out.push_back(ReasonJson(r));
  return out;
}

}  // namespace

diagnose::State ComputeReport::state() const {
  diagnose::State worst = diagnose::State::kSafe;
  bool seen = false;
  for (const ComputeGpu& g : gpus) {
    if (!g.visible) continue;
    seen = true;
    worst = std::max(worst, g.state);
  }
  return seen ? worst : diagnose::State::kUnusable;
}

Result<ComputeReport> CheckCompute(const sys::Root& root, std::string_view workload, std::string_view device) {
  return CheckCompute(root, detect::Detect(root), workload, device);
}

ComputeGpu ComputeGpuOf(const diagnose::Assessment& assessment, const detect::Gpu& gpu, std::string_view workload) {
  diagnose::Verdict v = diagnose::VerdictFor(assessment, gpu, workload);
  ComputeGpu out{gpu, v.state, v.visible, v.hip_index, {}, {}};
  for (const detect::Finding* f : v.reasons) out.reasons.push_back({detect::EffectName(f->effect), *f});
  for (const detect::Finding* f : v.notes) out.notes.push_back({detect::EffectName(f->effect), *f});
  return out;
}

ComputeReport ComputeReportOf(const diagnose::Assessment& assessment, std::string_view workload) {
  ComputeReport report{std::string(workload), "", {}, {}, assessment.program};
  for (const detect::Gpu& g : assessment.inventory.gpus) report.gpus.push_back(ComputeGpuOf(assessment, g, workload));
  if (assessment.inventory.gpus.empty()) report.reason = NoGpuReason(assessment.inventory);
  return report;
}

Result<ComputeReport> CheckCompute(const sys::Root& root, detect::Inventory inventory, std::string_view workload,
                                   std::string_view device, bool caller, std::vector<knobs::EnvSetting> caller_env,
                                   std::optional<program::Context> program, const LogReader& read_faults) {
  auto name = CheckWorkload(workload);
  if (!name) return tl::unexpected(name.error());
  if (!device.empty() && !Printable(device))
    return Fail(ErrorCode::kInvalidArgument, "the device is not a GPU id, card or render node name");
  // rocm-smi-lib's live values change no verdict: not asked.
  diagnose::AssessOptions options;
  options.live_facts = false;
  options.caller = caller;
  options.caller_env = std::move(caller_env);
  options.program = std::move(program);
  auto assessment = diagnose::Assess(root, std::move(inventory), options);
  if (!assessment) return tl::unexpected(assessment.error());
  const detect::Inventory& inv = assessment->inventory;
  ComputeReport report{*name, std::string(device), {}, {}, assessment->program};
  for (const detect::Gpu& g : inv.gpus) {
    if (!device.empty() && !Names(g, device)) continue;
    report.gpus.push_back(ComputeGpuOf(*assessment, g, report.workload));
  }
  if (!device.empty() && report.gpus.empty())
    return Fail(
        ErrorCode::kNotFound,
        fmt::format("no GPU '{}' here (GPUs: {}); name one by its id, card or render node", device, GpuList(inv.gpus)));
  if (inv.gpus.empty()) report.reason = NoGpuReason(inv);
  if (read_faults) AddFaultNotes(root, *assessment, report, read_faults);
  return report;
}

json SafeJson(diagnose::State state) {
  if (state == diagnose::State::kUnknown) return nullptr;
  return state == diagnose::State::kSafe;
}

json RuntimeJson(const runtime::Runtime& r) {
  json code = json::array();
  for (const runtime::Code& c : r.code)
    code.push_back({{"component", c.component},
                    {"path", c.path},
                    {"targets", c.targets},
                    {"unread", c.unread ? json(*c.unread) : json(nullptr)}});
  auto opt = [](const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); };
  return {{"kind", runtime::KindName(r.kind)},
          {"label", r.label},
          {"where", r.where},
          {"version", opt(r.version)},
          {"hip_version", opt(r.hip_version)},
          {"package", opt(r.package)},
          {"python", opt(r.python)},
          {"code", code},
          {"evidence", r.evidence}};
}

json ProgramJson(const diagnose::ProgramView& program) {
  json runtimes = json::array();
  for (const runtime::Runtime& r : program.runtimes) runtimes.push_back(RuntimeJson(r));
  return {{"kind", program.kind},
          {"name", program.name},
          {"runtime", program.runtimes.empty() ? json(nullptr) : runtimes.front()},
          {"runtimes", runtimes},
          {"notes", program.notes}};
}

json CheckComputeJson(const ComputeReport& report) {
  json gpus = json::array();
  for (const ComputeGpu& g : report.gpus)
    gpus.push_back({{"id", g.gpu.id},
                    {"name", g.gpu.marketing_name},
                    {"card", g.gpu.card ? json(*g.gpu.card) : json(nullptr)},
                    {"gfx_target", g.gpu.gfx_target ? json(*g.gpu.gfx_target) : json(nullptr)},
                    {"state", diagnose::StateName(g.state)},
                    {"usable", g.usable()},
                    {"safe", SafeJson(g.state)},
                    {"visible", g.visible},
                    {"hip_index", g.hip_index ? json(*g.hip_index) : json(nullptr)},
                    {"reasons", ReasonsJson(g.reasons)},
                    {"notes", ReasonsJson(g.notes)}});
  diagnose::State state = report.gpus.empty() ? diagnose::State::kUnusable : report.state();
  return {{"schema", "rocmtune.check_compute.v1"},
          {"safe", SafeJson(state)},
          {"state", diagnose::StateName(state)},
          {"workload", report.workload},
          {"device", StringOrNull(report.device)},
          {"program", ProgramJson(report.program)},
          {"gpus", gpus},
          {"reason", StringOrNull(report.reason)}};
}

}  // namespace rocmtune::api
