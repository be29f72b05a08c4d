#include "diagnose/verdict.h"

#include <algorithm>

namespace rocmtune::diagnose {

std::string_view StateName(State state) {
  switch (state) {
    case State::kSafe: return "safe";
    case State::kUnknown: return "unknown";
    case State::kUnsupported: return "unsupported";
    case State::kUnsafe: return "unsafe";
    case State::kUnusable: return "unusable";
  }
  return "unknown";
}

std::optional<State> StateOf(const Finding& f, std::string_view workload) {
  if (!f.Problem()) return std::nullopt;
  switch (f.effect) {
    case Effect::kNoGpu: return State::kUnusable;
    case Effect::kCrash: return f.Hits(workload) ? std::optional(State::kUnsafe) : std::nullopt;
    case Effect::kUnsupported: return f.Hits(workload) ? std::optional(State::kUnsupported) : std::nullopt;
    case Effect::kUnknown: return State::kUnknown;
    case Effect::kLimits:
    case Effect::kNone: return std::nullopt;
  }
  return std::nullopt;
}

Verdict VerdictFor(const Assessment& assessment, const detect::Gpu& gpu, std::string_view workload) {
  Verdict v{&gpu, gpu.kfd_node ? State::kSafe : State::kUnusable, true, std::nullopt, {}, {}};
  if (assessment.visibility) {
    v.visible = assessment.visibility->Sees(gpu.id);
    v.hip_index = assessment.visibility->HipIndex(gpu.id);
  }
  std::vector<std::pair<State, const Finding*>> reasons;
  for (const Finding& f : assessment.findings) {
    if (!f.Concerns(gpu.id) && (gpu.physical_id.empty() || !f.Concerns(gpu.physical_id))) continue;
    // The login files' settings do not reach a system service (systemd.exec(5), "Environment").
    if (f.kind == Kind::kEnvironment && !assessment.program.login_env) continue;
    if (std::optional<State> s = StateOf(f, workload)) {
      reasons.emplace_back(*s, &f);
      v.state = std::max(v.state, *s);
    } else if ((f.effect == Effect::kLimits && f.Problem()) ||
               // a log-only or low-confidence issue: "if you see X, it is likely Y"
               (f.kind == Kind::kKnownIssue && f.effect == Effect::kNone && !f.gpu.empty())) {
      v.notes.push_back(&f);
    }
  }
  std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [state, f] : reasons) v.reasons.push_back(f);
  return v;
}

}  // namespace rocmtune::diagnose
