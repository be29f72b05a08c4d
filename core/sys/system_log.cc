// ReadSystemLog: the journal where the root has one, /dev/kmsg on a live root without one; and the
// daemon's saved cursor.
#include "sys/system_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "sys/log_readers.h"

namespace rocmtune::sys {

Result<LogRead> ReadSystemLog(const Root& root, const LogQuery& query) {
  if (HasJournal(root)) return ReadJournal(root, query);
  if (root.IsLive()) return ReadKmsg(root, query);
  LogRead read;
  read.source = LogSource::kNone;
  read.why_none = fmt::format("no journal: no journal file in {} or {}", root.Display("var/log/journal"),
                              root.Display("run/log/journal"));
  return read;
}

namespace {

bool IsCursorText(std::string_view text) {
  // sd-journal's cursors ("s=...;i=...;b=...;m=...;t=...;x=...") and ours ("kmsg:BOOT:SEQ") are
  // printable ASCII without spaces.
  return std::all_of(text.begin(), text.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

std::string_view Dir(std::string_view path) { return path.substr(0, path.rfind('/')); }
std::string_view Base(std::string_view path) { return path.substr(path.rfind('/') + 1); }

}  // namespace

Result<std::string> LoadCursor(const Root& root) {
  auto text = root.ReadFile(kFaultsCursorPath, kMaxCursorBytes + 1);
  if (!text) {
    if (text.error().code == ErrorCode::kNotFound) return std::string();
    return tl::unexpected(text.error());
  }
  std::string_view cursor = *text;
  while (!cursor.empty() && cursor.back() == '\n') cursor.remove_suffix(1);
  if (cursor.size() > kMaxCursorBytes || !IsCursorText(cursor)) {
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: not a cursor", root.Display(kFaultsCursorPath)));
  }
  return std::string(cursor);
}

Result<void> SaveCursor(const Root& root, std::string_view cursor) {
  if (cursor.size() > kMaxCursorBytes || !IsCursorText(cursor)) {
    return Fail(ErrorCode::kInvalidArgument, "not a cursor");
  }
  auto dir = root.Open(Dir(kFaultsCursorPath), O_RDONLY | O_DIRECTORY);
  if (!dir) return tl::unexpected(dir.error());
  std::string base(Base(kFaultsCursorPath));
  std::string temporary = "." + base + ".new";
  auto fail = [&](std::string_view what) {
    int err = errno;
    ::unlinkat(dir->get(), temporary.c_str(), 0);
    return Fail(ErrorCode::kIo, fmt::format("{}: {}: {}", root.Display(kFaultsCursorPath), what, strerror(err)), err);
  };
  UniqueFd fd(::openat(dir->get(), temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd) return fail("create");
  std::string text = std::string(cursor) + "\n";
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("write");
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd.get()) != 0) return fail("fsync");
  fd.Reset();
  if (::renameat(dir->get(), temporary.c_str(), dir->get(), base.c_str()) != 0) return fail("rename");
  if (::fsync(dir->get()) != 0) return fail("fsync of the directory");
  return {};
}

}  // namespace rocmtune::sys
