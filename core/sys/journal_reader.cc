// The journal through sd-journal (sd-journal(3)). On a world every journal file beneath
// var/log/journal and run/log/journal is opened through the Root (openat2 RESOLVE_IN_ROOT, so no
// symlink in a world leads to this machine's journal; SD_JOURNAL_OS_ROOT would resolve with plain
// openat) and handed to sd_journal_open_files_fd, which interleaves them; a file this user may not
// open is left out and counted. On the live root sd_journal_open(SD_JOURNAL_LOCAL_ONLY) finds this
// machine's files itself and leaves out those the user may not read.
#include <errno.h>
#include <fcntl.h>
#include <systemd/sd-journal.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "sys/log_match.h"
#include "sys/log_readers.h"
#include "sys/unique_fd.h"
#include "util/handle.h"

namespace rocmtune::sys {

namespace {

using JournalHandle = Handle<sd_journal*, sd_journal_close>;

// The directories journald writes (systemd-journald.service(8)): persistent, then volatile.
constexpr std::string_view kJournalDirs[] = {"var/log/journal", "run/log/journal"};

// A journal, and the files beneath a world that it refused (closed with this).
struct OpenJournal {
  std::vector<UniqueFd> files;
  JournalHandle journal;
  size_t files_not_permitted = 0;
  size_t files_unreadable = 0;
};

bool IsJournalFile(std::string_view name) {
  // Online and archived files end in ".journal"; journald renames a file it found corrupt, or one
  // not closed cleanly, to "*.journal~" and it still holds what was written.
  auto ends_with = [&](std::string_view tail) {
    return name.size() > tail.size() && name.substr(name.size() - tail.size()) == tail;
  };
  return ends_with(".journal") || ends_with(".journal~");
}

std::string Errno(int r) { return std::string(strerror(-r)); }

Result<OpenJournal> OpenWorldJournal(const Root& root) {
  OpenJournal open;
  // The journal's directory holds one directory per machine id (and, from journal-remote or an
  // older layout, files directly).
  auto add_file = [&](const std::string& rel) -> Result<void> {
    auto fd = root.OpenRegular(rel);
    if (fd) {
      open.files.push_back(std::move(*fd));
      return {};
    }
    if (fd.error().errno_value == EACCES || fd.error().errno_value == EPERM) {
      ++open.files_not_permitted;
      return {};
    }
    if (fd.error().code == ErrorCode::kNotFound) return {};  // rotated away meanwhile
    return tl::unexpected(fd.error());
  };
  for (std::string_view dir : kJournalDirs) {
    if (!root.IsDirectory(dir)) continue;
    auto names = root.ListDir(dir);
    if (!names) {
      if (names.error().errno_value == EACCES) continue;
      return tl::unexpected(names.error());
    }
    for (const std::string& name : *names) {
      std::string rel = JoinPath(dir, name);
      if (IsJournalFile(name)) {
        if (auto added = add_file(rel); !added) return tl::unexpected(added.error());
        continue;
      }
      if (!root.IsDirectory(rel)) continue;
      auto inner = root.ListDir(rel);
      if (!inner) {
        // A machine directory this user may not list: its files are not there for them.
        if (inner.error().errno_value == EACCES) ++open.files_not_permitted;
        continue;
      }
      for (const std::string& file : *inner) {
        if (!IsJournalFile(file)) continue;
        if (auto added = add_file(JoinPath(rel, file)); !added) return tl::unexpected(added.error());
      }
    }
  }
  if (open.files.empty()) return open;  // nothing readable: an empty read, not an error
  // One file sd-journal refuses fails them all: a file cut short (its header's arena is longer
  // than the file: ENODATA) or not a journal (EBADMSG). Each is tried alone first, on a duplicate:
  // sd-journal (252) closes the descriptors of a journal it opened when it is closed, and leaves a
  // refused one open.
  std::vector<int> good;
  for (const UniqueFd& fd : open.files) {
    UniqueFd copy(::fcntl(fd.get(), F_DUPFD_CLOEXEC, 3));
    if (!copy) return Fail(ErrorCode::kIo, fmt::format("dup: {}", strerror(errno)), errno);
    int copy_fd = copy.get();
    sd_journal* alone = nullptr;
    if (sd_journal_open_files_fd(&alone, &copy_fd, 1, 0) >= 0) {
      static_cast<void>(copy.Release());  // sd_journal_close closes it
      sd_journal_close(alone);
      good.push_back(fd.get());
    } else {
      ++open.files_unreadable;
    }
  }
  if (good.empty()) return open;
  sd_journal* j = nullptr;
  int r = sd_journal_open_files_fd(&j, good.data(), static_cast<unsigned>(good.size()), 0);
  // Whatever the outcome, the good descriptors are sd-journal's now: on a failure it has closed
  // those it had taken (a leak of the others is better than closing a number reused meanwhile).
  for (UniqueFd& fd : open.files) {
    if (std::find(good.begin(), good.end(), fd.get()) != good.end()) static_cast<void>(fd.Release());
  }
  if (r < 0) {
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{}: the journal cannot be opened: {}", root.Display("var/log/journal"), Errno(r)), -r);
  }
  open.journal.Reset(j);
  return open;
}

Result<OpenJournal> OpenLiveJournal() {
  OpenJournal open;
  sd_journal* j = nullptr;
  int r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);
  if (r < 0) return Fail(ErrorCode::kIo, fmt::format("the journal cannot be opened: {}", Errno(r)), -r);
  open.journal.Reset(j);
  return open;
}

// The value of `field` in the current entry (valid until the next call on `j`).
std::optional<std::string_view> Field(sd_journal* j, const char* field) {
  const void* data = nullptr;
  size_t length = 0;
  if (sd_journal_get_data(j, field, &data, &length) < 0) return std::nullopt;
  std::string_view value(static_cast<const char*>(data), length);
  size_t prefix = std::char_traits<char>::length(field) + 1;  // "FIELD="
  if (value.size() < prefix) return std::nullopt;
  return value.substr(prefix);
}

template <typename T>
std::optional<T> NumberField(sd_journal* j, const char* field) {
  auto text = Field(j, field);
  if (!text) return std::nullopt;
  T value{};
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return value;
}

std::string Cursor(sd_journal* j) {
  char* cursor = nullptr;
  if (sd_journal_get_cursor(j, &cursor) < 0 || cursor == nullptr) return "";
  std::unique_ptr<char, decltype(&free)> owned(cursor, &free);
  return std::string(cursor);
}

bool IsBootId(std::string_view id) {
  return id.size() == 32 &&
         std::all_of(id.begin(), id.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// journalctl --list-boots: every _BOOT_ID with its first and last entry, oldest first, the newest
// numbered 0 and each older one less.
std::vector<LogBoot> ListBoots(sd_journal* j) {
  std::vector<std::string> ids;
  if (sd_journal_query_unique(j, "_BOOT_ID") >= 0) {
    const void* data = nullptr;
    size_t length = 0;
    while (sd_journal_enumerate_unique(j, &data, &length) > 0) {
      std::string_view value(static_cast<const char*>(data), length);
      constexpr std::string_view kPrefix = "_BOOT_ID=";
      if (value.substr(0, kPrefix.size()) != kPrefix) continue;
      value.remove_prefix(kPrefix.size());
      if (IsBootId(value)) ids.emplace_back(value);
    }
  }
  std::vector<LogBoot> boots;
  for (const std::string& id : ids) {
    std::string match = "_BOOT_ID=" + id;
    sd_journal_flush_matches(j);
    if (sd_journal_add_match(j, match.data(), match.size()) < 0) continue;
    LogBoot boot{id, 0, 0, 0};
    if (sd_journal_seek_head(j) >= 0 && sd_journal_next(j) > 0) sd_journal_get_realtime_usec(j, &boot.first_usec);
    if (sd_journal_seek_tail(j) >= 0 && sd_journal_previous(j) > 0) sd_journal_get_realtime_usec(j, &boot.last_usec);
    if (boot.first_usec != 0) boots.push_back(std::move(boot));
  }
  sd_journal_flush_matches(j);
  std::sort(boots.begin(), boots.end(), [](const LogBoot& a, const LogBoot& b) { return a.first_usec < b.first_usec; });
  for (size_t i = 0; i < boots.size(); ++i) boots[i].offset = static_cast<int>(i) - static_cast<int>(boots.size() - 1);
  return boots;
}

// journalctl -b: 0 and below count back from the newest boot, 1 and up forward from the oldest.
const LogBoot* FindBoot(const std::vector<LogBoot>& boots, int offset) {
  if (boots.empty()) return nullptr;
  int index = offset <= 0 ? static_cast<int>(boots.size()) - 1 + offset : offset - 1;
  if (index < 0 || index >= static_cast<int>(boots.size())) return nullptr;
  return &boots[static_cast<size_t>(index)];
}

Result<void> AddMatches(sd_journal* j, const std::string* boot_id) {
  // The kernel's lines and services' (their stdout/stderr, syslog(3) and sd_journal_print), not
  // audit records or journald's own: one field's matches are ORed, another field's ANDed.
  for (std::string_view transport :
       {"_TRANSPORT=kernel", "_TRANSPORT=stdout", "_TRANSPORT=syslog", "_TRANSPORT=journal"}) {
    int r = sd_journal_add_match(j, transport.data(), transport.size());
    if (r < 0) return Fail(ErrorCode::kIo, fmt::format("journal match {}: {}", transport, Errno(r)), -r);
  }
  if (boot_id) {
    std::string match = "_BOOT_ID=" + *boot_id;
    int r = sd_journal_add_match(j, match.data(), match.size());
    if (r < 0) return Fail(ErrorCode::kIo, fmt::format("journal match {}: {}", match, Errno(r)), -r);
  }
  return {};
}

// Positions `j` so that the next sd_journal_next() returns the first entry to look at.
Result<bool> Seek(sd_journal* j, const LogQuery& query) {
  if (query.after_cursor.empty()) {
    int r = query.since_usec ? sd_journal_seek_realtime_usec(j, *query.since_usec) : sd_journal_seek_head(j);
    if (r < 0) return Fail(ErrorCode::kIo, fmt::format("journal seek: {}", Errno(r)), -r);
    return false;
  }
  int r = sd_journal_seek_cursor(j, query.after_cursor.c_str());
  if (r < 0) {
    return Fail(ErrorCode::kInvalidArgument, fmt::format("not a journal cursor: \"{}\"", query.after_cursor), -r);
  }
  return true;
}

}  // namespace

bool HasJournal(const Root& root) {
  // A journal file in a journal directory or in one of its machine directories. A directory this
  // user may not list counts as holding one: the journal is there, only not for them. An empty
  // /var/log/journal (a container whose journald never ran) is no journal.
  auto holds_file = [&](const std::string& dir, int depth, auto& self) -> bool {
    auto names = root.ListDir(dir);
    if (!names) return names.error().errno_value == EACCES;
    for (const std::string& name : *names) {
      std::string rel = JoinPath(dir, name);
      if (IsJournalFile(name) && root.TypeOf(rel) == EntryType::kFile) return true;
      if (depth > 0 && root.IsDirectory(rel) && self(rel, depth - 1, self)) return true;
    }
    return false;
  };
  return std::any_of(std::begin(kJournalDirs), std::end(kJournalDirs), [&](std::string_view dir) {
    return root.IsDirectory(dir) && holds_file(std::string(dir), 1, holds_file);
  });
}

Result<LogRead> ReadJournal(const Root& root, const LogQuery& query) {
  auto open = root.IsLive() ? OpenLiveJournal() : OpenWorldJournal(root);
  if (!open) return tl::unexpected(open.error());
  LogRead read;
  read.source = LogSource::kJournal;
  read.files_not_permitted = open->files_not_permitted;
  read.files_unreadable = open->files_unreadable;
  read.last_cursor = query.after_cursor;
  sd_journal* j = open->journal.get();
  if (j == nullptr) return read;

  read.boots = ListBoots(j);
  const std::string* boot_id = nullptr;
  if (query.boot) {
    const LogBoot* boot = FindBoot(read.boots, *query.boot);
    if (!boot) return read;
    boot_id = &boot->boot_id;
  }
  if (auto added = AddMatches(j, boot_id); !added) return tl::unexpected(added.error());
  // Only a message's first kMaxMessageBytes are kept: sd-journal need not decompress the rest.
  sd_journal_set_data_threshold(j, kMaxMessageBytes + sizeof("MESSAGE="));
  auto from_cursor = Seek(j, query);
  if (!from_cursor) return tl::unexpected(from_cursor.error());

  NewestEntries kept(query.max_entries);
  bool first = true;
  // A read error part-way (a file truncated or corrupt past some point) ends the read with what
  // was read before it: sd-journal has already skipped what it could not make sense of.
  while (sd_journal_next(j) > 0) {
    // After a cursor: the entry it names is the first one sd_journal_next() returns, unless it is
    // gone (then the one after it, which is new).
    if (first && *from_cursor && sd_journal_test_cursor(j, query.after_cursor.c_str()) > 0) {
      first = false;
      continue;
    }
    first = false;
    uint64_t realtime = 0;
    sd_journal_get_realtime_usec(j, &realtime);
    if (query.since_usec && realtime < *query.since_usec) continue;
    auto transport = Field(j, "_TRANSPORT");
    if (!transport) continue;
    bool kernel = *transport == "kernel";
    auto field = Field(j, "MESSAGE");
    if (!field) continue;
    // What is kept is what is looked at: a fault form past the bound would not reach the parser.
    std::string_view message = field->substr(0, kMaxMessageBytes);
    if (kernel ? !KernelLineMatters(message) : !ServiceLineMatters(message)) continue;
    LogEntry entry;
    entry.message = BoundMessage(message);
    entry.realtime_usec = realtime;
    entry.transport = kernel ? LogTransport::kKernel : LogTransport::kService;
    if (auto boot = Field(j, "_BOOT_ID"); boot && IsBootId(*boot)) entry.boot_id = std::string(*boot);
    if (kernel) {
      // The kernel's own lines: SYSLOG_FACILITY=0 (older journald: none at all).
      auto facility = Field(j, "SYSLOG_FACILITY");
      entry.written_by_process = facility && *facility != "0";
    } else {
      if (auto unit = Field(j, "_SYSTEMD_UNIT")) entry.unit = BoundMessage(*unit);
      if (auto comm = Field(j, "_COMM")) entry.comm = BoundMessage(*comm);
      entry.pid = NumberField<int64_t>(j, "_PID");
      entry.uid = NumberField<uint32_t>(j, "_UID");
    }
    entry.cursor = Cursor(j);
    kept.Add(std::move(entry));
  }
  // The last entry looked at, kept or not: sd_journal_next() returning 0 leaves it current.
  if (!first) {
    if (std::string cursor = Cursor(j); !cursor.empty()) read.last_cursor = std::move(cursor);
  }
  read.truncated = kept.truncated();
  read.entries = kept.Take();
  return read;
}

}  // namespace rocmtune::sys
