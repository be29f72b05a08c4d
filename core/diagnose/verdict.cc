#include "diagnose/verdict.h"

namespace rocmtune::diagnose {

Verdict VerdictFor(const Assessment& assessment, const detect::Gpu& gpu, std::string_view workload) {
  Verdict v{&gpu, gpu.kfd_node.has_value(), {}, {}};
  for (const Finding& f : assessment.findings) {
    if (!f.Problem() || !f.Concerns(gpu.id)) continue;
    switch (f.effect) {
      case Effect::kNoGpu:
        v.usable = false;
        v.reasons.push_back(&f);
        break;
      case Effect::kCrash:
        if (f.Hits(workload)) v.reasons.push_back(&f);
        break;
      case Effect::kLimits:
      case Effect::kUnsupported: v.notes.push_back(&f); break;
      case Effect::kNone: break;
    }
  }
  return v;
}

}  // namespace rocmtune::diagnose
