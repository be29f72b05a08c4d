#include "detect/finding.h"

#include <algorithm>

#include "knowledge/known_issues.h"

namespace rocmtune::detect {

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

std::string SourceText(const Finding& finding) {
  std::string out;
  for (const std::string& s : finding.sources) out += (out.empty() ? "" : "; ") + s;
  return out;
}

std::vector<std::string> SourcesOf(std::string source) {
  if (source.empty()) return {};
  return {std::move(source)};
}

}  // namespace rocmtune::detect
