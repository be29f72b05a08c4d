// The system log's entries (sys/system_log.h) as fault records: a pure function of the entries
// and the inventory, so what a world's journal, /dev/kmsg or a test's entries hold gives the same
// records.
//
// Grouping: a page fault's block (its first line, the task line, the address line, the L2
// protection status lines) and a ring timeout's "Process information" line are the lines of one
// GPU (the kernel prints the device on each) within kBlockWindowUsec of the previous one; a
// reset's begin and its outcome within kResetWindowUsec; repeated MES lines of one GPU within
// kMesWindowUsec (MES repeats "ring buffer is full" for seconds); the runtime's lines of one
// process within kBlockWindowUsec (the fault line and the aperture violation of one crash).
#pragma once

#include <cstdint>
#include <vector>

#include "detect/inventory.h"
#include "faults/fault.h"
#include "sys/system_log.h"

namespace rocmtune::faults {

inline constexpr uint64_t kBlockWindowUsec = 2'000'000;
inline constexpr uint64_t kResetWindowUsec = 120'000'000;
inline constexpr uint64_t kMesWindowUsec = 30'000'000;

// Oldest first; at most kMaxFaultRecords (the newest). The GPU of each record is the inventory's
// GPU whose PCI address the kernel line names, or whose KFD node the runtime's line names.
std::vector<FaultRecord> RecordsFromLog(const std::vector<sys::LogEntry>& entries, const detect::Inventory& inventory);

// The boot offsets of `boots` (sys::LogRead::boots) on the records whose boot id they list.
void SetBootOffsets(std::vector<FaultRecord>& records, const std::vector<sys::LogBoot>& boots);

}  // namespace rocmtune::faults
