// A GPU fault as the system's log recorded it (`rocmtunectl faults`, doctor's "GPU faults",
// check-compute's note, rocmtuned's Faults, the export): the kernel's amdgpu/KFD lines and the
// ROCm runtime's own lines of a service, grouped into one record per event, with the GPU of this
// machine it happened on, the process and user the lines name, and the likely cause doctor's
// crash-log matcher gives for those lines (faults/cause.h; never a second matcher).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnose/finding.h"
#include "knobs/env_sources.h"

namespace rocmtune::faults {

// What happened. The one table of names and descriptions is kFaultKinds (fault.cc); nothing
// compares a kind's name as a string.
enum class FaultKind {
  kPageFault,        // a GPU page fault: "[gfxhub] page fault (... pasid:N ...)" and its block
  kProtectionFault,  // a VM_L2_PROTECTION_FAULT_STATUS block without its page-fault line (rate limited)
  kRingTimeout,      // "ring NAME timeout, signaled seq=..., emitted seq=..."
  kGpuReset,         // "GPU reset begin!" and its outcome
  kMesFailure,       // the MES firmware scheduler did not answer ("MES failed to respond to msg=...")
  kKfdEviction,      // KFD evicted a process's queues ("Freeing queue vital buffer ..., queue evicted")
  kRuntimeFault,     // the ROCm runtime's "Memory access fault by GPU node-N ..." / HSA_STATUS_ERROR_*
};

struct FaultKindInfo {
  FaultKind kind;
  std::string_view name;         // in JSON, on the command line, in the export's label
  std::string_view description;  // for a person
};
const std::vector<FaultKindInfo>& FaultKinds();
std::string_view FaultKindName(FaultKind kind);
std::string_view FaultKindDescription(FaultKind kind);
std::optional<FaultKind> ParseFaultKind(std::string_view name);

// How a reset or a timeout ended, when the log says it.
enum class FaultOutcome { kUnknown, kSucceeded, kFailed, kSoftRecovered };
std::string_view FaultOutcomeName(FaultOutcome outcome);  // "unknown", "succeeded", "failed", "soft-recovered"

inline constexpr size_t kMaxFaultLines = 24;         // the lines one record keeps (the first ones)
inline constexpr size_t kMaxFaultRecords = 1000;     // the newest records a reading keeps
inline constexpr size_t kMaxFaultFieldBytes = 64;    // a process, thread, ring or unit name
inline constexpr size_t kMaxFaultDetailBytes = 160;  // a line's detail (address line, reason)

struct FaultRecord {
  FaultKind kind = FaultKind::kPageFault;
  uint64_t realtime_usec = 0;  // the first line's time
  std::string boot_id;         // empty when unknown
  std::optional<int> boot;     // journalctl's offset: 0 this boot, -1 the one before
  std::string cursor;          // the first line's cursor

  // The GPU: the inventory's id when the lines name a GPU of this machine (the kernel's PCI
  // address, the runtime's KFD node); what the lines say otherwise.
  std::string gpu;                         // inventory id; empty when none of this machine's
  std::optional<std::string> card;         // "card1"
  std::optional<std::string> pci_address;  // as the kernel line names it
  std::optional<std::string> gfx_target;   // the inventory's
  std::optional<int> kfd_node;             // the runtime line's node-N

  std::optional<uint32_t> pasid;
  std::string hub;     // "gfxhub", "mmhub0", ... (page faults)
  std::string ring;    // the ring that timed out
  std::string detail;  // the runtime's Reason, MES's message, the fault's address line
  FaultOutcome outcome = FaultOutcome::kUnknown;

  // Who: the process the lines name (the kernel's task info, the service entry's _COMM/_PID),
  // the thread, the unit of a service entry, the user (_UID of the service entry, or the
  // owner of /proc/PID while it runs and is the same program: faults/process.h). Never guessed.
  std::string process;
  std::optional<int64_t> pid;
  std::string thread;
  std::optional<int64_t> thread_pid;
  std::string unit;
  std::optional<uint32_t> uid;
  std::string user;

  std::vector<std::string> lines;  // as logged, at most kMaxFaultLines

  // The environment the program ran with, where rocmtune can know it (faults/process.h): a
  // running process's environ, a service's configured environment. `env_source` says which.
  std::vector<knobs::EnvSetting> env;
  std::string env_source;

  // doctor's crash-log matches for `lines` (faults/cause.h): the likely cause first.
  std::vector<detect::Finding> causes;

  // The lines as one text, as doctor --log reads a pasted log.
  std::string Text() const;
};

}  // namespace rocmtune::faults
