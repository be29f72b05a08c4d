#include "diagnose/finding.h"

#include <algorithm>

#include "knowledge/known_issues.h"

namespace rocmtune::diagnose {

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
