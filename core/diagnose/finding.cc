#include "diagnose/finding.h"

#include <algorithm>

#include "knowledge/known_issues.h"

namespace rocmtune::diagnose {

namespace {
constexpr std::string_view kProcCmdline = "proc/cmdline";
}  // namespace

std::string_view KindName(Kind kind) {
  switch (kind) {
    case Kind::kDetection: return "detection";
    case Kind::kSetting: return "setting";
    case Kind::kEnvironment: return "environment";
    case Kind::kCaller: return "caller";
    case Kind::kFile: return "file";
    case Kind::kJournal: return "journal";
    case Kind::kMachine: return "machine";
    case Kind::kSupport: return "support";
    case Kind::kLive: return "live";
    case Kind::kKnownIssue: return "known-issue";
    case Kind::kLog: return "log";
    case Kind::kRuntime: return "runtime";
  }
  return "detection";
}

std::string_view EffectName(Effect effect) {
  switch (effect) {
    case Effect::kNone: return "none";
    case Effect::kCrash: return "crash";
    case Effect::kNoGpu: return "no-gpu";
    case Effect::kLimits: return "limits";
    case Effect::kUnsupported: return "unsupported";
    case Effect::kUnknown: return "unknown";
  }
  return "none";
}

bool Finding::Hits(std::string_view workload) const {
  if (workloads.empty() || workload == knowledge::kWorkloadAny) return true;
  return std::find(workloads.begin(), workloads.end(), workload) != workloads.end();
}

Finding FromDetect(const detect::Finding& f, Kind kind, Effect effect, std::string gpu) {
  Finding d;
  d.id = f.id;
  d.severity = f.severity;
  d.kind = kind;
  d.effect = effect;
  d.gpu = std::move(gpu);
  d.subject = f.subject;
  d.what = f.message;
  d.fix.text = f.hint;
  if (!f.source.empty()) d.sources.push_back(f.source);
  d.file = f.file;
  d.line = f.line;
  return d;
}

void MergeSameFacts(std::vector<Finding>& findings) {
  std::vector<Finding> out;
  out.reserve(findings.size());
  for (Finding& f : findings) {
    Place here{f.file, f.line};
    auto same = std::find_if(out.begin(), out.end(), [&](const Finding& o) {
      return !f.file.empty() && !o.file.empty() && o.id == f.id && o.gpu == f.gpu && o.subject == f.subject &&
             o.severity == f.severity && o.what == f.what;
    });
    if (same == out.end()) {
      if (!f.file.empty() && f.places.empty()) f.places.push_back(here);
      out.push_back(std::move(f));
      continue;
    }
    if (std::find(same->places.begin(), same->places.end(), here) == same->places.end()) same->places.push_back(here);
    for (std::string& e : f.evidence)
      if (std::find(same->evidence.begin(), same->evidence.end(), e) == same->evidence.end())
        same->evidence.push_back(std::move(e));
    // /proc/cmdline says what booted; the file that boots it next is where the fix is made.
    if (same->file == kProcCmdline && f.file != kProcCmdline) {
      same->file = f.file;
      same->line = f.line;
      same->fix = std::move(f.fix);
      std::stable_partition(same->places.begin(), same->places.end(),
                            [&](const Place& p) { return p.file == same->file && p.line == same->line; });
    }
  }
  findings = std::move(out);
}

Finding MakeFinding(std::string id, Severity severity, std::string subject, std::string what, std::string why,
                    std::string fix, std::vector<std::string> sources) {
  Finding f;
  f.id = std::move(id);
  f.severity = severity;
  f.kind = Kind::kMachine;
  f.subject = std::move(subject);
  f.what = std::move(what);
  f.why = std::move(why);
  f.fix.text = std::move(fix);
  f.sources = std::move(sources);
  return f;
}

}  // namespace rocmtune::diagnose
