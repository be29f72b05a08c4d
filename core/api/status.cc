#include "api/status.h"

#include <nlohmann/json.hpp>

#include "api/boot_image_json.h"
#include "api/check_compute.h"
#include "api/doctor.h"
#include "api/live_json.h"
#include "api/status_json.h"
#include "knowledge/known_issues.h"
#include "util/json_object.h"

namespace rocmtune::api {

namespace {

using json = nlohmann::ordered_json;

json OrNull(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json FindingJson(const detect::Finding& f) {
  json doc = FindingHeadJson(f);
  doc["message"] = f.what;
  doc["file"] = OrNull(f.file);
  doc["line"] = f.line > 0 ? json(f.line) : json(nullptr);
  doc["places"] = PlacesJson(f);
  doc["hint"] = OrNull(f.fix.text);
  doc["source"] = OrNull(detect::SourceText(f));
  return doc;
}

// Each GPU's verdict for any work: its state, usable, safe, and the ids of the findings that decide it.
json ComputeJson(const diagnose::Assessment& a, const detect::Gpu& g) {
  ComputeGpu verdict = ComputeGpuOf(a, g, knowledge::kWorkloadAny);
  json reasons = json::array();
  for (const ComputeReason& r : verdict.reasons) reasons.push_back(r.finding.id);
  json notes = json::array();
  for (const ComputeReason& r : verdict.notes) notes.push_back(r.finding.id);
  JsonObject doc(7);
  doc.Add("state", diagnose::StateName(verdict.state));
  doc.Add("usable", verdict.usable());
  doc.Add("safe", SafeJson(verdict.state));
  doc.Add("supported", verdict.state != diagnose::State::kUnsupported);
  doc.Add("visible", verdict.visible);
  doc.Add("reasons", std::move(reasons));
  doc.Add("notes", std::move(notes));
  return doc.Take();
}

json Bytes(const std::optional<uint64_t>& b) { return b ? json(*b) : json(nullptr); }

// The memory ROCm programs can allocate (diagnose/rocm_memory.h), every input beside the result.
json RocmMemoryJson(const diagnose::RocmMemory& m) {
  JsonObject doc(9);
  doc.Add("allocatable_bytes", Bytes(m.allocatable_bytes));
  doc.Add("gtt_allocatable_bytes", Bytes(m.gtt_allocatable_bytes));
  doc.Add("limited_by", OrNull(m.limited_by));
  doc.Add("vram_bytes", Bytes(m.vram_bytes));
  doc.Add("gtt_bytes", Bytes(m.gtt_bytes));
  doc.Add("ttm_module", OrNull(m.ttm_module));
  doc.Add("ttm_limit_bytes", Bytes(m.ttm_limit_bytes));
  doc.Add("kfd_system_limit_bytes", Bytes(m.system_limit_bytes));
  doc.Add("unknown", OrNull(m.unknown));
  return doc.Take();
}

}  // namespace

Result<StatusReport> Status(const sys::Root& root) { return Status(root, detect::Detect(root), {}); }

Result<StatusReport> Status(const sys::Root& root, detect::Inventory inventory, const StatusOptions& options) {
  diagnose::AssessOptions assess;
  assess.live_facts = options.live_facts;
  assess.known_live = options.known_live;
  assess.caller = options.caller;
  auto report = diagnose::Assess(root, std::move(inventory), assess);
  if (report) report->boot_image = boot::CheckBootImage(root, report->inventory, report->had_module_options);
  return report;
}

Result<nlohmann::ordered_json> DescribeSystem(const sys::Root& root, detect::Inventory inventory,
                                              const StatusOptions& options) {
  auto report = Status(root, std::move(inventory), options);
  if (!report) return tl::unexpected(report.error());
  return StatusJson(*report);
}

nlohmann::ordered_json StatusJson(const StatusReport& report) {
  json doc = StatusJson(report.inventory, report.knobs);
  doc["profile"] = OrNull(report.active_profile);
  json findings = json::array();
  for (const detect::Finding& f : report.findings) findings.push_back(FindingJson(f));
  doc["findings"] = std::move(findings);
  doc["program"] = ProgramJson(report.program);
  if (report.boot_image) doc["boot_image"] = BootImageJson(*report.boot_image);
  for (size_t i = 0; i < report.inventory.gpus.size() && i < doc["gpus"].size(); ++i)
    doc["gpus"][i]["compute"] = ComputeJson(report, report.inventory.gpus[i]);
  for (size_t i = 0; i < report.memory.size() && i < doc["gpus"].size(); ++i)
    doc["gpus"][i]["rocm_memory"] = RocmMemoryJson(report.memory[i]);
  if (report.live)
    for (size_t i = 0; i < report.live->size() && i < doc["gpus"].size(); ++i)
      doc["gpus"][i]["live"] = LiveJson((*report.live)[i]);
  return doc;
}

Result<nlohmann::ordered_json> DescribeSystem(const sys::Root& root) {
  auto report = Status(root);
  if (!report) return tl::unexpected(report.error());
  return StatusJson(*report);
}

}  // namespace rocmtune::api
