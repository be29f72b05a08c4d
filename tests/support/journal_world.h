// Journals made by the real systemd-journal-remote (Debian 12 package systemd-journal-remote) in a
// world's var/log/journal: entries written as a journal export file (systemd's "Journal Export
// Format": "FIELD=value\n" lines, a binary field as "FIELD\n" + 64-bit little-endian size + bytes +
// "\n", an empty line after each entry), which journal-remote turns into a journal file. It keeps
// the export's __REALTIME_TIMESTAMP, __MONOTONIC_TIMESTAMP and _BOOT_ID as the entry's own
// (tests/unit/sys/system_log_test.cc checks that it does).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rocmtune::testing {

inline constexpr std::string_view kJournalRemote = "/lib/systemd/systemd-journal-remote";
// The machine id of every test journal's directory (var/log/journal/<id>/).
inline constexpr std::string_view kTestMachineId = "3f1e2d4c5b6a79881726354453627180";

// Why journals cannot be made here (no systemd-journal-remote), for GTEST_SKIP; nullopt: they can.
std::optional<std::string> JournalRemoteUnavailable();

// One entry's fields in order ("MESSAGE", "...") with __REALTIME_TIMESTAMP etc. among them.
using JournalFields = std::vector<std::pair<std::string, std::string>>;

// A kernel line as journald (252) records it: _TRANSPORT=kernel, SYSLOG_FACILITY=0,
// SYSLOG_IDENTIFIER=kernel (seen in tests/vm/scenarios/faults-kmsg.sh).
JournalFields KernelEntry(std::string_view boot_id, uint64_t realtime_usec, std::string_view message);
// A unit's standard output/error line (_TRANSPORT=stdout).
JournalFields ServiceEntry(std::string_view boot_id, uint64_t realtime_usec, std::string_view unit,
                           std::string_view comm, int64_t pid, uint32_t uid, std::string_view message);

// The export format of `entries`.
std::string ExportFormat(const std::vector<JournalFields>& entries);

// Writes `entries` to `<root>/<file>` with systemd-journal-remote (the directories are made;
// default: var/log/journal/<kTestMachineId>/system.journal) and returns the journal file's path.
// Throws with the tool's output when it fails.
std::string WriteJournal(const std::string& root, const std::vector<JournalFields>& entries,
                         std::string_view file = "");

}  // namespace rocmtune::testing
