#include "api/doctor.h"

#include <algorithm>
#include <set>
#include <utility>

#include "api/known_issue_eval.h"
#include "api/status.h"
#include "knowledge/known_issues.h"

namespace rocmtune::api {

namespace {

using json = nlohmann::ordered_json;

detect::Severity SeverityOf(const std::string& name) {
  if (name == "error") return detect::Severity::kError;
  if (name == "warning") return detect::Severity::kWarning;
  return detect::Severity::kInfo;
}

json OrNull(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json FindingJson(const DoctorFinding& f) {
  return {{"id", f.id},
          {"severity", detect::SeverityName(f.severity)},
          {"subject", OrNull(f.subject)},
          {"what", f.what},
          {"why", OrNull(f.why)},
          {"fix", DoctorFixJson(f.fix)},
          {"sources", f.sources},
          {"confidence", OrNull(f.confidence)},
          {"evidence", f.evidence},
          {"symptoms", f.symptoms},
          {"file", OrNull(f.file)},
          {"line", f.line > 0 ? json(f.line) : json(nullptr)}};
}

// A known issue that matched a GPU replaces the generic findings it names for that GPU (the
// rdna1-not-supported issue says more than rocm.gpu-not-supported: why, and what to do instead).
void DropSuperseded(std::vector<DoctorFinding>& findings, const std::set<std::pair<std::string, std::string>>& gone) {
  std::erase_if(findings, [&](const DoctorFinding& f) { return gone.count({f.subject, f.id}) > 0; });
}

}  // namespace

DoctorFinding StatusFinding(const detect::Finding& f) {
  DoctorFinding d;
  d.id = f.id;
  d.severity = f.severity;
  d.subject = f.subject;
  d.what = f.message;
  d.fix.text = f.hint;
  if (!f.source.empty()) d.sources.push_back(f.source);
  d.file = f.file;
  d.line = f.line;
  return d;
}

DoctorFinding MakeFinding(std::string id, detect::Severity severity, std::string subject, std::string what,
                          std::string why, std::string fix, std::vector<std::string> sources) {
  DoctorFinding f;
  f.id = std::move(id);
  f.severity = severity;
  f.subject = std::move(subject);
  f.what = std::move(what);
  f.why = std::move(why);
  f.fix.text = std::move(fix);
  f.sources = std::move(sources);
  return f;
}

DoctorFinding IssueFinding(const IssueMatch& m) {
  const knowledge::KnownIssue& i = *m.issue;
  DoctorFinding d;
  d.id = "issue." + i.id;
  d.severity = SeverityOf(i.severity);
  d.subject = m.gpu;
  d.what = i.title;
  d.why = i.why;
  d.fix = {i.fix.text, i.fix.profile, i.fix.set, i.fix.unset, i.fix.rocm, i.fix.kernel, i.fix.none};
  d.sources = i.sources;
  d.confidence = i.confidence;
  d.evidence = m.evidence;
  d.symptoms = m.symptoms;
  return d;
}

json DoctorFixJson(const DoctorFix& fix) {
  return {{"text", OrNull(fix.text)}, {"profile", OrNull(fix.profile)}, {"set", fix.set},          {"unset", fix.unset},
          {"rocm", OrNull(fix.rocm)}, {"kernel", OrNull(fix.kernel)},   {"none", OrNull(fix.none)}};
}

Result<DoctorReport> Doctor(const sys::Root& root, std::optional<std::string> log) {
  auto status = Status(root);
  if (!status) return tl::unexpected(status.error());
  const detect::Inventory& inventory = status->inventory;
  DoctorReport report;
  report.gpus = inventory.gpus;
  report.log_given = log.has_value();
  for (const detect::Finding& f : inventory.findings) report.findings.push_back(StatusFinding(f));
  for (DoctorFinding& f : MachineChecks(root, inventory)) report.findings.push_back(std::move(f));
  for (DoctorFinding& f : SupportChecks(inventory)) report.findings.push_back(std::move(f));
  if (status->live)
    for (DoctorFinding& f : LiveChecks(*status->live)) report.findings.push_back(std::move(f));
  const knowledge::KnownIssues& issues = knowledge::KnownIssues::Builtin();
  std::set<std::pair<std::string, std::string>> superseded;  // (GPU id, finding id)
  for (const detect::Gpu& gpu : inventory.gpus) {
    if (gpu.id.empty()) continue;
    for (const IssueMatch& m : EvaluateKnownIssues(issues, gpu, MachineInputs(root, inventory, gpu))) {
      report.findings.push_back(IssueFinding(m));
      for (const std::string& id : m.issue->supersedes) superseded.insert({gpu.id, id});
    }
  }
  DropSuperseded(report.findings, superseded);
  if (log) AddLogMatches(root, inventory, *log, report);
  return report;
}

bool DoctorFoundProblems(const DoctorReport& report) {
  auto bad = [](const DoctorFinding& f) { return f.severity != detect::Severity::kInfo; };
  return std::any_of(report.findings.begin(), report.findings.end(), bad) ||
         std::any_of(report.log_matches.begin(), report.log_matches.end(), bad);
}

nlohmann::ordered_json DoctorJson(const DoctorReport& report) {
  json gpus = json::array();
  for (const detect::Gpu& g : report.gpus)
    gpus.push_back({{"id", g.id},
                    {"name", g.marketing_name},
                    {"gfx_target", g.gfx_target ? json(*g.gfx_target) : json(nullptr)},
                    {"apu", g.apu ? json(*g.apu) : json(nullptr)}});
  json findings = json::array();
  for (const DoctorFinding& f : report.findings) findings.push_back(FindingJson(f));
  json log = nullptr;
  if (report.log_given) {
    json matches = json::array();
    for (const DoctorFinding& f : report.log_matches) matches.push_back(FindingJson(f));
    auto cause = std::find_if(report.log_matches.begin(), report.log_matches.end(), IsLogCause);
    json names = json::array();
    for (const LogGpuRef& r : report.log_names)
      names.push_back({{"kind", GpuRefKindName(r.kind)}, {"text", r.text}, {"gpus", r.gpus}});
    log = {{"likely_cause", cause == report.log_matches.end() ? json(nullptr) : json(cause->id)},
           {"gpus", report.log_gpus},
           {"names", names},
           {"matches", matches}};
  }
  return {{"schema", "rocmtune.doctor.v1"},
          {"problems", DoctorFoundProblems(report)},
          {"gpus", gpus},
          {"findings", findings},
          {"log", log}};
}

}  // namespace rocmtune::api
