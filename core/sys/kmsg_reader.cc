// /dev/kmsg where the root has no journal (a container, an initramfs, a system without journald):
// this boot's kernel ring buffer, read without blocking from its first record to its last.
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "sys/kmsg_record.h"
#include "sys/log_match.h"
#include "sys/log_readers.h"
#include "util/text.h"

namespace rocmtune::sys {

namespace {

// The kernel's limit on one record as read (CONSOLE_EXT_LOG_MAX, 8 KiB); a larger buffer for the
// dictionary lines after it. A smaller one makes read(2) fail with EINVAL.
constexpr size_t kRecordBuffer = 16 << 10;
constexpr std::string_view kCursorPrefix = "kmsg:";

// The boot's wall clock start: "btime SECONDS" in /proc/stat (proc(5)).
uint64_t BootTimeUsec(const Root& root) {
  auto stat = root.ReadFile("proc/stat");
  if (!stat) return 0;
  for (std::string_view line : text::SplitLines(*stat)) {
    if (line.substr(0, 6) != "btime ") continue;
    line.remove_prefix(6);
    uint64_t seconds = 0;
    auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), seconds);
    if (ec == std::errc()) return seconds * 1000000;
  }
  return 0;
}

// This boot's id as the journal writes it: 32 lower-case hex digits, no dashes.
std::string BootId(const Root& root) {
  auto text = root.ReadFile("proc/sys/kernel/random/boot_id", 128);
  if (!text) return "";
  std::string id;
  for (char c : *text) {
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) id.push_back(c);
  }
  return id.size() == 32 ? id : "";
}

// "kmsg:BOOT_ID:SEQ" of this boot -> SEQ; a cursor of another boot or source reads from the start.
std::optional<uint64_t> CursorSeq(std::string_view cursor, std::string_view boot_id) {
  if (cursor.substr(0, kCursorPrefix.size()) != kCursorPrefix) return std::nullopt;
  cursor.remove_prefix(kCursorPrefix.size());
  size_t colon = cursor.find(':');
  if (colon == std::string_view::npos || cursor.substr(0, colon) != boot_id) return std::nullopt;
  cursor.remove_prefix(colon + 1);
  uint64_t seq = 0;
  auto [end, ec] = std::from_chars(cursor.data(), cursor.data() + cursor.size(), seq);
  if (ec != std::errc() || end != cursor.data() + cursor.size()) return std::nullopt;
  return seq;
}

LogRead None(std::string why) {
  LogRead read;
  read.source = LogSource::kNone;
  read.why_none = std::move(why);
  return read;
}

}  // namespace

Result<LogRead> ReadKmsg(const Root& root, const LogQuery& query) {
  auto fd = root.Open("dev/kmsg", O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (!fd) {
    int err = fd.error().errno_value;
    // printk.c devkmsg_open: with kernel.dmesg_restrict=1 only CAP_SYSLOG may read (EPERM).
    if (err == EPERM || err == EACCES) {
      return None(
          "no journal, and reading /dev/kmsg is not permitted (kernel.dmesg_restrict=1 leaves it to "
          "CAP_SYSLOG: run as root)");
    }
    return None(fmt::format("no journal, and /dev/kmsg cannot be opened: {}", fd.error().message));
  }
  std::string boot_id = BootId(root);
  uint64_t boot_usec = BootTimeUsec(root);
  std::optional<uint64_t> after = CursorSeq(query.after_cursor, boot_id);

  LogRead read;
  read.source = LogSource::kKmsg;
  read.last_cursor = query.after_cursor;
  NewestEntries kept(query.max_entries);
  // Only this boot is in the ring buffer: another offset has nothing.
  bool this_boot = !query.boot || *query.boot == 0;
  std::string buffer(kRecordBuffer, '\0');
  while (this_boot) {
    ssize_t n = ::read(fd->get(), buffer.data(), buffer.size());
    if (n < 0) {
      // EPIPE: records were overwritten since the last read; the next read returns the oldest left.
      if (errno == EINTR || errno == EPIPE) continue;
      if (errno == EPERM || errno == EACCES) {
        return None("no journal, and reading /dev/kmsg is not permitted (kernel.dmesg_restrict=1)");
      }
      break;  // EAGAIN: the end of the buffer
    }
    if (n == 0) break;
    auto record = ParseKmsgRecord(std::string_view(buffer.data(), static_cast<size_t>(n)));
    if (!record) continue;
    if (after && record->seq <= *after) continue;
    read.last_cursor = fmt::format("{}{}:{}", kCursorPrefix, boot_id, record->seq);
    uint64_t realtime = boot_usec + record->usec;
    if (query.since_usec && realtime < *query.since_usec) continue;
    if (!KernelLineMatters(record->message)) continue;
    LogEntry entry;
    entry.realtime_usec = realtime;
    entry.boot_id = boot_id;
    entry.transport = LogTransport::kKernel;
    entry.message = std::move(record->message);
    entry.cursor = read.last_cursor;
    entry.written_by_process = record->facility != 0;
    kept.Add(std::move(entry));
  }
  read.truncated = kept.truncated();
  read.entries = kept.Take();
  return read;
}

}  // namespace rocmtune::sys
