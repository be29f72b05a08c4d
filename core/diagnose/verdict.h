// The compute verdict (check-compute's question: may a program run this kind of work on this GPU?),
// read off the assessment's findings, for the program context the assessment was made for (whose
// environment, and the ROCm runtime it loads: diagnose/assess.h). One state per GPU and workload:
//   unusable     ROCm programs cannot use the GPU at all (KFD does not list it, this user cannot
//                open /dev/kfd, an environment value that makes ROCm fail)
//   unsafe       a finding predicts a crash or wrong results of that work: a known issue of high or
//                medium confidence whose rule holds here, an HSA_OVERRIDE_GFX_VERSION of another
//                ISA family
//   unsupported  the runtime the program loads carries no code for the GPU's ISA (its effective one,
//                under an override): the program's kernels cannot start
//   unknown      the runtime, or the code it carries, could not be determined; what was missing is said
//   safe         none of the above: KFD lists the GPU, the caller can open it, the runtime has code
//                for it, and no known crash holds
// The first that holds, in this order, is the state; every finding that holds is a reason. A GPU
// the program does not see (ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES) is judged, and marked hidden:
// it cannot hurt the program, so it does not count against the machine's answer.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "diagnose/assess.h"

namespace rocmtune::diagnose {

enum class State { kSafe, kUnknown, kUnsupported, kUnsafe, kUnusable };  // worse last
std::string_view StateName(State state);  // "safe", "unknown", "unsupported", "unsafe", "unusable"

struct Verdict {
  const detect::Gpu* gpu = nullptr;
  State state = State::kSafe;
  bool visible = true;                  // the program sees it (program::Visibility)
  std::optional<int> hip_index;         // its device number in the program's HIP numbering, when seen
  std::vector<const Finding*> reasons;  // every finding that makes it not safe, worst first
  std::vector<const Finding*> notes;    // what holds but lets programs run: limits, "if you see X"
  bool usable() const { return state != State::kUnusable; }
  bool safe() const { return state == State::kSafe; }
};

// `workload`: knowledge::kWorkloads or kWorkloadAny. The pointers are into `assessment`.
Verdict VerdictFor(const Assessment& assessment, const detect::Gpu& gpu, std::string_view workload);

// The state a finding gives a GPU for `workload`, or nullopt when it decides nothing.
std::optional<State> StateOf(const Finding& finding, std::string_view workload);

}  // namespace rocmtune::diagnose
