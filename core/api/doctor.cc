#include "api/doctor.h"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

#include "util/json_text.h"

namespace rocmtune::api {

namespace {

using json = nlohmann::ordered_json;

}  // namespace

json FindingHeadJson(const DoctorFinding& f) {
  return {{"id", f.id},
          {"severity", detect::SeverityName(f.severity)},
          {"kind", detect::KindName(f.kind)},
          {"effect", detect::EffectName(f.effect)},
          {"gpu", StringOrNull(f.gpu)},
          {"subject", StringOrNull(f.subject)}};
}

json DoctorFindingJson(const DoctorFinding& f) {
  json doc = FindingHeadJson(f);
  doc["what"] = f.what;
  doc["why"] = StringOrNull(f.why);
  doc["fix"] = DoctorFixJson(f.fix);
  doc["sources"] = f.sources;
  doc["confidence"] = StringOrNull(f.confidence);
  doc["evidence"] = f.evidence;
  doc["symptoms"] = f.symptoms;
  doc["file"] = StringOrNull(f.file);
  doc["line"] = f.line > 0 ? json(f.line) : json(nullptr);
  doc["places"] = PlacesJson(f);
  return doc;
}

json PlacesJson(const DoctorFinding& f) {
  json out = json::array();
  for (const detect::Place& p : f.places)
    out.push_back({{"file", p.file}, {"line", p.line > 0 ? json(p.line) : json(nullptr)}});
  return out;
}

json DoctorFixJson(const DoctorFix& fix) {
  return {{"text", StringOrNull(fix.text)},
          {"profile", StringOrNull(fix.profile)},
          {"set", fix.set},
          {"unset", fix.unset},
          {"rocm", StringOrNull(fix.rocm)},
          {"kernel", StringOrNull(fix.kernel)},
          {"none", StringOrNull(fix.none)}};
}

DoctorReport DoctorOf(diagnose::Assessment a) {
  return {std::move(a.inventory.gpus), std::move(a.findings), a.log_given, std::move(a.log_matches),
          std::move(a.log_names),      std::move(a.log_gpus), std::nullopt};
}

Result<DoctorReport> Doctor(const sys::Root& root, DoctorOptions options) {
  diagnose::AssessOptions assess;
  assess.log = std::move(options.log);
  assess.caller = options.caller;
  assess.caller_env = std::move(options.caller_env);
  assess.services = true;
  auto assessment = diagnose::Assess(root, detect::Detect(root), assess);
  if (!assessment) return tl::unexpected(assessment.error());
  std::optional<FaultsReport> faults;
  if (options.faults) {
    FaultsOptions read;
    read.causes_this_boot_only = true;
    read.read_log = std::move(options.read_log);
    auto found = Faults(root, *assessment, read);
    if (found) {
      faults = std::move(*found);
    } else {  // a log that cannot be read is said, not a failed doctor
      faults.emplace();
      faults->why_none = found.error().message;
    }
  }
  DoctorReport report = DoctorOf(std::move(*assessment));
  report.faults = std::move(faults);
  return report;
}

Result<DoctorReport> Doctor(const sys::Root& root, std::optional<std::string> log) {
  DoctorOptions options;
  options.log = std::move(log);
  return Doctor(root, std::move(options));
}

bool DoctorFoundProblems(const DoctorReport& report) {
  auto bad = [](const DoctorFinding& f) { return f.Problem(); };
  bool faults = false;
  if (report.faults)
    for (const faults::FaultRecord& r : report.faults->records)
      if (ThisBoot(*report.faults, r)) faults = faults || std::any_of(r.causes.begin(), r.causes.end(), bad);
  return faults || std::any_of(report.findings.begin(), report.findings.end(), bad) ||
         std::any_of(report.log_matches.begin(), report.log_matches.end(), bad);
}

json DoctorJson(const DoctorReport& report) {
  json gpus = json::array();
  for (const detect::Gpu& g : report.gpus)
    gpus.push_back({{"id", g.id},
                    {"name", g.marketing_name},
                    {"gfx_target", g.gfx_target ? json(*g.gfx_target) : json(nullptr)},
                    {"apu", g.apu ? json(*g.apu) : json(nullptr)}});
  json findings = json::array();
  for (const DoctorFinding& f : report.findings) findings.push_back(DoctorFindingJson(f));
  json log = nullptr;
  if (report.log_given) {
    json matches = json::array();
    for (const DoctorFinding& f : report.log_matches) matches.push_back(DoctorFindingJson(f));
    auto cause = std::find_if(report.log_matches.begin(), report.log_matches.end(), diagnose::IsLogCause);
    json names = json::array();
    for (const diagnose::LogGpuRef& r : report.log_names)
      names.push_back({{"kind", diagnose::GpuRefKindName(r.kind)}, {"text", r.text}, {"gpus", r.gpus}});
    log = {{"likely_cause", cause == report.log_matches.end() ? json(nullptr) : json(cause->id)},
           {"gpus", report.log_gpus},
           {"names", names},
           {"matches", matches}};
  }
  return {{"schema", "rocmtune.doctor.v1"},
          {"problems", DoctorFoundProblems(report)},
          {"gpus", gpus},
          {"findings", findings},
          {"log", log},
          {"faults", report.faults ? DoctorFaultsJson(*report.faults) : json(nullptr)}};
}

}  // namespace rocmtune::api
