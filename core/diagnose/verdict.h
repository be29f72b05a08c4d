// The compute verdict (check-compute's question: may a program run this kind of work on this GPU
// without meeting a known crash?), read off the assessment's findings: a GPU is not usable when a
// problem finding says ROCm programs cannot use it (KFD does not list it, no KFD, no ROCm ISA,
// this user cannot open /dev/kfd, an environment that makes ROCm fail), and not safe for a
// workload when, besides, a problem finding predicts a crash or wrong results of that workload
// on it (a known issue, an HSA_OVERRIDE_GFX_VERSION of another ISA family, ...).
#pragma once

#include <string_view>
#include <vector>

#include "diagnose/assess.h"

namespace rocmtune::diagnose {

struct Verdict {
  const detect::Gpu* gpu = nullptr;
  bool usable = true;
  std::vector<const Finding*> reasons;  // why it is not safe (effect crash or no-gpu); empty: safe
  // What holds but lets programs run: limits, and the installed ROCm not supporting the GPU.
  std::vector<const Finding*> notes;
  bool safe() const { return usable && reasons.empty(); }
};

// `workload`: knowledge::kWorkloads or kWorkloadAny. The pointers are into `assessment`.
Verdict VerdictFor(const Assessment& assessment, const detect::Gpu& gpu, std::string_view workload);

}  // namespace rocmtune::diagnose
