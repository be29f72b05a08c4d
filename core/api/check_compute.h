// `check-compute`: may a program run a kind of work on the GPUs here without meeting a known
// crash, answered before it touches the GPU. A fallback after the fact cannot work: HIP aborts
// the process on a GPU memory access fault, so no try/except in the program ever runs.
//
// The answer is the assessment's compute verdict (diagnose/verdict.h): the same findings
// `status` and `doctor` show decide it. rocmtunectl and rocmtuned's CheckCompute both answer
// with this.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "api/doctor.h"
#include "detect/inventory.h"
#include "diagnose/assess.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::api {

struct ComputeReason {
  std::string_view outcome;  // diagnose::EffectName: "crash", "no-gpu", "limits", "unsupported"
  DoctorFinding finding;     // as doctor reports it
};

struct ComputeGpu {
  detect::Gpu gpu;
  bool usable = true;                  // ROCm programs can use it at all (KFD lists it, ...)
  std::vector<ComputeReason> reasons;  // why it is not safe; empty: safe
  // What holds but lets programs run: issues that limit them, and the installed ROCm release not
  // supporting (or deprecating) the GPU, which programs meet as missing code, not as a crash.
  std::vector<ComputeReason> notes;
  bool safe() const { return usable && reasons.empty(); }
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
// The same with an inventory detected earlier on this root (the daemon's); `caller` as in
// diagnose::AssessOptions.
Result<ComputeReport> CheckCompute(const sys::Root& root, detect::Inventory inventory, std::string_view workload,
                                   std::string_view device, bool caller = true,
                                   std::vector<knobs::EnvSetting> caller_env = {});
// The verdict of an assessment made already (status's per-GPU verdict uses the same).
ComputeGpu ComputeGpuOf(const diagnose::Assessment& assessment, const detect::Gpu& gpu, std::string_view workload);

// The rocmtune.check_compute.v1 document.
nlohmann::ordered_json CheckComputeJson(const ComputeReport& report);

}  // namespace rocmtune::api
