#include "faults/fault.h"

#include <algorithm>

namespace rocmtune::faults {

const std::vector<FaultKindInfo>& FaultKinds() {
  static const std::vector<FaultKindInfo> kFaultKinds = {
      {FaultKind::kPageFault, "page-fault", "a GPU page fault: the GPU accessed an address the process has no page at"},
      {FaultKind::kProtectionFault, "protection-fault",
       "a GPU VM protection fault (the L2 protection fault status without its page-fault line)"},
      {FaultKind::kRingTimeout, "ring-timeout", "a GPU ring timed out: a job did not finish in time (a GPU hang)"},
      {FaultKind::kGpuReset, "gpu-reset", "the driver reset the GPU"},
      {FaultKind::kMesFailure, "mes-failure", "the GPU's MES firmware scheduler did not answer the driver"},
      {FaultKind::kKfdEviction, "kfd-eviction", "KFD evicted a process's compute queues"},
      {FaultKind::kRuntimeFault, "runtime-fault", "the ROCm runtime reported a GPU memory fault and ended the program"},
  };
  return kFaultKinds;
}

namespace {

const FaultKindInfo* InfoOf(FaultKind kind) {
  for (const FaultKindInfo& k : FaultKinds())
    if (k.kind == kind) return &k;
  return nullptr;
}

}  // namespace

std::string_view FaultKindName(FaultKind kind) {
  const FaultKindInfo* k = InfoOf(kind);
  return k ? k->name : "unknown";
}

std::string_view FaultKindDescription(FaultKind kind) {
  const FaultKindInfo* k = InfoOf(kind);
  return k ? k->description : "";
}

std::optional<FaultKind> ParseFaultKind(std::string_view name) {
  for (const FaultKindInfo& k : FaultKinds())
    if (k.name == name) return k.kind;
  return std::nullopt;
}

std::string_view FaultOutcomeName(FaultOutcome outcome) {
  switch (outcome) {
    case FaultOutcome::kUnknown: return "unknown";
    case FaultOutcome::kSucceeded: return "succeeded";
    case FaultOutcome::kFailed: return "failed";
    case FaultOutcome::kSoftRecovered: return "soft-recovered";
  }
  return "unknown";
}

std::string FaultRecord::Text() const {
  std::string out;
  for (const std::string& l : lines) {
    out += l;
    out += '\n';
  }
  return out;
}

}  // namespace rocmtune::faults
