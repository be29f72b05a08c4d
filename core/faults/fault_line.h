// One logged line as a GPU fault's part: which form it has and the fields it carries. The forms
// are the kernel's and the ROCm runtime's own format strings, across the kernels that changed them:
//
//   page fault     gmc_v9_0.c/gmc_v10_0.c/gmc_v11_0.c *_process_interrupt:
//                    up to v6.9   "[gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770, for process
//                                  python3 pid 4242 thread python3 pid 4251)" (one line; gmc_v9_0.c says
//                                  "[gfxhub0] retry page fault (...)" / "no-retry page fault")
//                    v6.10        "[gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770)" then
//                                  " in process python3 pid 4242 thread python3 pid 4251)" (commit
//                                  "drm/amdgpu: change vm->task_info handling", amdgpu_vm_get_task_info_pasid)
//                    v6.11 on     the same first line, then amdgpu_vm.c amdgpu_vm_print_task_info's
//                                  " Process python3 pid 4242 thread python3 pid 4251"
//                  then "  in page starting at address 0x... from client ..." (v5.x "from client %d",
//                  later "from IH client 0x1b (UTCL2)") and the hub's print_l2_protection_fault_status
//                  (gfxhub_v2_0.c, mmhub_v2_0.c, ...): "GCVM_L2_PROTECTION_FAULT_STATUS:0x00301031",
//                  "\t Faulty UTCL2 client ID: ...", "\t MORE_FAULTS: 0x1", WALKER_ERROR, PERMISSION_FAULTS,
//                  MAPPING_ERROR, RW.
//   ring timeout   amdgpu_job.c amdgpu_job_timedout: "ring gfx_0.0.0 timeout, signaled seq=..., emitted
//                  seq=..." then "Process information: process NAME pid N thread T pid M" (DRM_ERROR,
//                  "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ...", before dev_err named the device);
//                  "ring NAME timeout, but soft recovered"; then (6.12 on) "Ring NAME reset succeeded"
//                  or "Ring NAME reset failed" before a full GPU reset.
//   GPU reset      amdgpu_device.c amdgpu_device_gpu_recover: "GPU reset begin!", "GPU reset(N) succeeded!",
//                  "GPU reset(N) failed", "GPU reset end with ret = R"; amdgpu_job.c "GPU Recovery Failed: R".
//   MES            mes_v11_0.c mes_v11_0_submit_pkt_and_poll_completion: "MES failed to respond to
//                  msg=REMOVE_QUEUE" (later "MES(0) failed to respond to msg=...", before 6.10 "MES failed to
//                  response msg=3"), "MES ring buffer is full"; kfd_device_queue_manager.c "MES might be in
//                  unrecoverable state, issue a GPU reset";
//                  amdgpu_mes.c "failed to remove hardware queue from MES, doorbell=0x...".
//   KFD eviction   kfd_svm.c svm_range_unmap_from_cpu: "Freeing queue vital buffer 0x..., queue evicted";
//                  kfd_process.c evict_process_worker "Started evicting pasid 0x8002", older
//                  "Evicting PASID 0x%x queues".
//   runtime        ROCR-Runtime runtime.cpp VMFaultHandler: "Memory access fault by GPU node-N (Agent
//                  handle: 0x...) on address 0x.... Reason: Page not present or supervisor privilege.";
//                  HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION / HSA_STATUS_ERROR_MEMORY_FAULT from a
//                  queue's error callback.
//
// The kernel's lines start with the device: "amdgpu 0000:03:00.0: amdgpu: " (dev_err) — the PCI
// address maps the line to a GPU of this machine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rocmtune::faults {

enum class LineForm {
  kNone,
  kPageFault,           // starts a page fault block
  kTaskInfo,            // "Process NAME pid N thread ..." / " in process ..." / "for process ..."
  kFaultAddress,        // "in page starting at address ..."
  kL2Status,            // "*VM_L2_PROTECTION_FAULT_STATUS:0x..."
  kL2Detail,            // "Faulty UTCL2 client ID", "MORE_FAULTS", "WALKER_ERROR", ...
  kRingTimeout,         // "ring NAME timeout, signaled seq=..."
  kRingSoftRecovered,   // "ring NAME timeout, but soft recovered"
  kProcessInformation,  // "Process information: process NAME pid N ..."
  kRingResetSucceeded,  // "Ring NAME reset succeeded" (a timeout's per-ring reset)
  kRingResetFailed,
  kResetBegin,
  kResetSucceeded,
  kResetFailed,
  kMes,
  kKfdEviction,
  kRuntimeFault,
};

struct FaultLine {
  LineForm form = LineForm::kNone;
  std::string pci_address;  // "0000:03:00.0" from the "amdgpu 0000:03:00.0: " prefix; empty when none
  std::optional<uint32_t> pasid;
  std::string hub;
  std::string process;
  std::optional<int64_t> pid;
  std::string thread;
  std::optional<int64_t> thread_pid;
  std::string ring;
  std::optional<int> kfd_node;  // the runtime's node-N
  std::string detail;           // the runtime's Reason, MES's message, the address line
};

// The form of one logged message and its fields; kNone for anything else (never an error).
FaultLine ReadFaultLine(std::string_view message);

}  // namespace rocmtune::faults
