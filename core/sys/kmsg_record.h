// One record of /dev/kmsg as a read(2) returns it (the kernel's Documentation/ABI/testing/dev-kmsg):
//   "PRIO,SEQ,USEC,FLAGS[,more fields];MESSAGE\n[ KEY=VALUE\n]..."
// PRIO is facility << 3 | level, SEQ the record's 64-bit sequence number, USEC the monotonic time
// it was printed at, FLAGS '-' (or 'c' for a continued line in older kernels); later kernels may
// add fields before ';' (the ABI says to ignore them). Bytes that are not printable in MESSAGE are
// escaped as \xNN; the dictionary lines after it start with a space. A pure function over bytes,
// so that it can be fuzzed (tests/fuzz/system_log_kmsg_fuzz.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rocmtune::sys {

struct KmsgRecord {
  int facility = 0;  // 0: the kernel's own (LOG_KERN); 1 (LOG_USER) and up: written by a process
  int level = 0;     // 0 (emerg) .. 7 (debug)
  uint64_t seq = 0;
  uint64_t usec = 0;    // CLOCK_MONOTONIC when printed
  std::string message;  // \xNN unescaped, NULs as spaces, at most kMaxMessageBytes
};

// nullopt for a record that does not have this form (a header field missing or not a number).
std::optional<KmsgRecord> ParseKmsgRecord(std::string_view record);

}  // namespace rocmtune::sys
