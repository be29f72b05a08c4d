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
#include "diagnose/verdict.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::api {

struct ComputeReason {
  std::string_view outcome;  // detect::EffectName: "crash", "no-gpu", "limits", "unsupported", "unknown", "none"
  DoctorFinding finding;     // as doctor reports it
};

struct ComputeGpu {
  detect::Gpu gpu;
  diagnose::State state = diagnose::State::kSafe;
  bool visible = true;                 // the program sees it (HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES)
  std::optional<int> hip_index;        // its device number in the program's HIP numbering
  std::vector<ComputeReason> reasons;  // why it is not safe, worst first; empty: safe
  // What holds but lets programs run: limits, and known issues only a crash log would show.
  std::vector<ComputeReason> notes;
  bool usable() const { return state != diagnose::State::kUnusable; }
  bool safe() const { return state == diagnose::State::kSafe; }
};

struct ComputeReport {
  std::string workload;  // knowledge::kWorkloads or kWorkloadAny
  std::string device;    // as asked; empty: every GPU
  std::vector<ComputeGpu> gpus;
  std::string reason;             // when no GPU is there to ask about: why
  diagnose::ProgramView program;  // whose environment, and the runtime it loads
  // The worst state among the GPUs asked about that the program sees (kUnusable when it sees none).
  diagnose::State state() const;
  // Every GPU asked about that the program sees is safe, and there is one.
  bool safe() const { return state() == diagnose::State::kSafe; }
};

// `workload`: empty or "any" for every kind of work; `device`: empty for every GPU, else a GPU
// id (PCI address, as status prints it), a card ("card1") or a render node ("renderD128").
// Fails with kInvalidArgument for an unknown workload, kNotFound for a device that is not here.
Result<ComputeReport> CheckCompute(const sys::Root& root, std::string_view workload, std::string_view device);
// The same with an inventory detected earlier on this root (the daemon's); `caller`, `caller_env`
// and `program` as in diagnose::AssessOptions; `read_faults`, when given, adds AddFaultNotes (the
// CLI reads the log with its caller's rights; rocmtuned does not pass it).
Result<ComputeReport> CheckCompute(const sys::Root& root, detect::Inventory inventory, std::string_view workload,
                                   std::string_view device, bool caller = true,
                                   std::vector<knobs::EnvSetting> caller_env = {},
                                   std::optional<program::Context> program = std::nullopt,
                                   const LogReader& read_faults = {});
// The GPU faults of this boot under the current configuration (api/compute_faults.cc) as notes of
// each GPU's verdict, read with `read`: evidence beside the verdict, which they never change.
void AddFaultNotes(const sys::Root& root, diagnose::Assessment& assessment, ComputeReport& report,
                   const LogReader& read);
// The report of an assessment made already (doctor's services).
ComputeReport ComputeReportOf(const diagnose::Assessment& assessment, std::string_view workload);
// The verdict of an assessment made already (status's per-GPU verdict uses the same).
ComputeGpu ComputeGpuOf(const diagnose::Assessment& assessment, const detect::Gpu& gpu, std::string_view workload);

// The rocmtune.check_compute.v1 document.
nlohmann::ordered_json CheckComputeJson(const ComputeReport& report);
// The program part of it: {"kind", "name", "runtime": the one it loads or null, "runtimes": [...]}.
nlohmann::ordered_json ProgramJson(const diagnose::ProgramView& program);
nlohmann::ordered_json RuntimeJson(const runtime::Runtime& runtime);
// "safe" true/false, null when unknown (JSON's answer to "is it safe": not known either way).
nlohmann::ordered_json SafeJson(diagnose::State state);

}  // namespace rocmtune::api
