// `check-compute`: may a program run a kind of work on the GPUs here without meeting a known
// crash, answered before it touches the GPU. A fallback after the fact cannot work: HIP aborts
// the process on a GPU memory access fault, so no try/except in the program ever runs.
//
// A GPU is not safe for a workload when a known issue holds for it (doctor's evaluation, issues
// only a log can show included: they are the risk) whose outcome is a crash that hits the
// workload or a GPU ROCm programs cannot use; or when detection says it has no ROCm ISA. A fix in
// effect (a profile applied, the variable removed, a newer ROCm) makes the rule stop holding.
// rocmtunectl and rocmtuned's CheckCompute both answer with this.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/doctor.h"
#include "detect/inventory.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::api {

struct ComputeReason {
  std::string_view outcome;  // knowledge::OutcomeName ("crash", "no-gpu", "limits"), or "unsupported"
  DoctorFinding finding;     // as doctor reports it
};

struct ComputeGpu {
  detect::Gpu gpu;
  std::vector<ComputeReason> reasons;  // why it is not safe; empty: safe
  // What holds but lets programs run: issues that limit them, and the installed ROCm release not
  // supporting (or deprecating) the GPU, which programs meet as missing code, not as a crash.
  std::vector<ComputeReason> notes;
  bool safe() const { return reasons.empty(); }
};

struct ComputeReport {
  std::string workload;  // knowledge::kWorkloads or kWorkloadAny
  std::string device;    // as asked; empty: every GPU
  std::vector<ComputeGpu> gpus;
  std::string reason;  // when no GPU is there to ask about: why
  // Every GPU asked about is safe, and there is one.
  bool safe() const;
};

// `workload`: empty or "any" for every kind of work; `device`: empty for every GPU, else a GPU
// id (PCI address, as status prints it), a card ("card1") or a render node ("renderD128").
// Fails with kInvalidArgument for an unknown workload, kNotFound for a device that is not here.
Result<ComputeReport> CheckCompute(const sys::Root& root, std::string_view workload, std::string_view device);
// The same with an inventory detected earlier on this root (the daemon's).
Result<ComputeReport> CheckCompute(const sys::Root& root, detect::Inventory inventory, std::string_view workload,
                                   std::string_view device);

// The rocmtune.check_compute.v1 document.
nlohmann::ordered_json CheckComputeJson(const ComputeReport& report);

}  // namespace rocmtune::api
