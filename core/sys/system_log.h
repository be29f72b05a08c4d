// The system's log as rocmtune reads it for GPU faults (`rocmtunectl faults`, doctor's "GPU faults"):
// the journal through sd-journal (the kernel's messages of this and earlier boots, and the standard
// output and error of services such as ollama, where the ROCm runtime prints its own fault lines),
// or /dev/kmsg where the root has no journal. Read on demand, never watched: the caller keeps a
// cursor and passes it back to read only what is new.
//
// The reader keeps only entries that can matter to a GPU fault (the kernel's amdgpu/KFD lines, a
// service's lines that name the ROCm runtime's fault forms): every other entry is skipped without
// being copied, and each kept message is bounded (kMaxMessageBytes), so a hostile or huge journal
// costs time, never memory. What the caller may not read (another user's services, a journal this
// user is not in the group of) is simply not there: sd-journal already applies the file modes.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::sys {

// Where an entry came from.
enum class LogTransport {
  kKernel,   // _TRANSPORT=kernel, or a /dev/kmsg record
  kService,  // _TRANSPORT=stdout (a unit's standard output/error), syslog or journal
};

struct LogEntry {
  uint64_t realtime_usec = 0;  // __REALTIME_TIMESTAMP (kmsg: boot time + the record's monotonic)
  std::string boot_id;         // 32 lower-case hex digits; empty when unknown
  LogTransport transport = LogTransport::kKernel;
  std::string unit;             // _SYSTEMD_UNIT (e.g. "ollama.service"); empty for the kernel
  std::string comm;             // _COMM of a service entry; empty for the kernel
  std::optional<int64_t> pid;   // _PID of a service entry
  std::optional<uint32_t> uid;  // _UID of a service entry
  std::string message;          // MESSAGE, at most kMaxMessageBytes, NULs replaced by spaces
  std::string cursor;           // sd-journal's cursor ("kmsg:BOOT_ID:SEQ" for /dev/kmsg records)
  // A kernel-transport line a process wrote to /dev/kmsg, not one the kernel printed: its facility
  // is not LOG_KERN (the kernel gives a written line LOG_USER unless it names another,
  // kernel/printk/printk.c devkmsg_write). journald (252) records both with _TRANSPORT=kernel; the
  // kernel's own with SYSLOG_FACILITY=0 and SYSLOG_IDENTIFIER=kernel, a written one with its
  // facility (1) and no identifier unless its first word ends in ':' (tests/vm/scenarios/
  // faults-kmsg.sh shows both). The message reads the same; the caller may weigh it differently.
  bool written_by_process = false;
};

// One boot the log holds, newest last; offset 0 is this boot (journalctl --list-boots' numbering).
struct LogBoot {
  std::string boot_id;
  int offset = 0;
  uint64_t first_usec = 0;
  uint64_t last_usec = 0;
};

struct LogQuery {
  std::optional<int> boot;  // journalctl -b's offset (0 this boot, -1 the one before); none: all
  std::optional<uint64_t> since_usec;
  std::string after_cursor;    // only entries after this one (a cursor an earlier read returned)
  size_t max_entries = 10000;  // the newest ones win when there are more
};

enum class LogSource { kJournal, kKmsg, kNone };

struct LogRead {
  LogSource source = LogSource::kNone;
  std::string why_none;            // kNone: why (no journal, kmsg not permitted, ...)
  std::vector<LogEntry> entries;   // oldest first
  std::vector<LogBoot> boots;      // the boots the log holds (journal only)
  std::string last_cursor;         // the last entry looked at (kept or not); pass it back
  bool truncated = false;          // more matched than max_entries
  size_t files_not_permitted = 0;  // journal files of a world this user may not read (skipped)
  size_t files_unreadable = 0;     // journal files of a world sd-journal refuses (cut short, not a journal)
};

inline constexpr size_t kMaxMessageBytes = 4096;

// Reads the log beneath `root`: its var/log/journal and run/log/journal (on a world each journal
// file is opened beneath the root and handed to sd_journal_open_files_fd; sd_journal_open on the
// live root), else /dev/kmsg on the live root. An error only for a journal that exists and cannot
// be read for a reason other than permission, or an after_cursor that is no cursor at all. A
// `boot` offset the log does not hold reads nothing (`boots` says which there are).
Result<LogRead> ReadSystemLog(const Root& root, const LogQuery& query);

// Where rocmtuned keeps the cursor of the last entry it looked at, beneath the root: a directory
// of its own (rocmtuned.service StateDirectory=rocmtune/daemon, owned by user rocmtune; its parent
// /var/lib/rocmtune stays root's, the helper's journal is there).
inline constexpr std::string_view kFaultsCursorPath = "var/lib/rocmtune/daemon/faults-cursor";
inline constexpr size_t kMaxCursorBytes = 1024;

// The saved cursor; empty when there is none yet (a missing file or directory). An error for a
// file that cannot be read or is not a cursor (too long, control bytes).
Result<std::string> LoadCursor(const Root& root);
// Replaces the saved cursor atomically (a temporary beside it, fsync, rename). The directory must
// exist (systemd makes it).
Result<void> SaveCursor(const Root& root, std::string_view cursor);

}  // namespace rocmtune::sys
