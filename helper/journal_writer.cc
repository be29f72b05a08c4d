#include "helper/journal_writer.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "helper/file_writer.h"
#include "helper/state_access.h"
#include "journal/journal.h"
#include "util/json_text.h"

namespace rocmtune::helper {
namespace {

int OpenBeneath(int dirfd, const std::string& path, uint64_t flags, mode_t mode) {
  struct open_how how {};
  how.flags = flags;
  how.mode = mode;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, dirfd, path.c_str(), &how, sizeof(how)));
}

tl::unexpected<Error> JournalError(const sys::Root& root, std::string_view what, std::string_view file, int err) {
  return Fail(ErrorCode::kIo, fmt::format("journal: {} {}: {}", what, root.Display(file), std::strerror(err)), err);
}

}  // namespace

Result<void> EnsureJournalDir(const sys::Root& root, StepHook& hook) {
  FileWriter writer(root, hook);
  std::string probe = fmt::format("{}/x", journal::kJournalDir);
  auto missing = writer.MissingParents(probe);
  if (!missing) return tl::unexpected(missing.error());
  for (const std::string& dir : *missing)
    if (auto made = writer.Mkdir(dir); !made) return made;
  return {};
}

Result<JournalWriter> JournalWriter::Create(const sys::Root& root, StepHook& hook, uint64_t number) {
  if (auto dir = EnsureJournalDir(root, hook); !dir) return tl::unexpected(dir.error());
  std::string file = fmt::format("{}/{}", journal::kJournalDir, journal::JournalFileName(number));
  if (auto h = hook.Before(Step::kJournalCreate, file); !h)
    return JournalError(root, "creating", file, h.error().errno_value);
  int fd = OpenBeneath(root.fd(), file, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return JournalError(root, "creating", file, errno);
  JournalWriter writer(root, hook, file, sys::UniqueFd(fd));
  // It holds the before-contents of files an admin may keep private: root's alone whatever the
  // umask, or root's and readable by rocmtuned's group (state_access.h), which answers History.
  StateAccess access = StateAccessFor(root);
  if (auto set = SetAccess(writer.fd_.get(), access, access.FileMode()); !set)
    return JournalError(root, "creating", file, set.error().errno_value);
  // The new name must survive a crash too, or the transaction's records would vanish with it.
  int dir = OpenBeneath(root.fd(), std::string(journal::kJournalDir), O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (dir < 0) return JournalError(root, "opening", journal::kJournalDir, errno);
  sys::UniqueFd dir_fd(dir);
  if (auto h = hook.Before(Step::kDirSync, file); !h) return JournalError(root, "syncing", file, h.error().errno_value);
  if (::fsync(dir_fd.get()) != 0) return JournalError(root, "syncing", journal::kJournalDir, errno);
  return writer;
}

Result<void> JournalWriter::WriteContents(const nlohmann::ordered_json& record, uint64_t number) {
  std::string file = fmt::format("{}/{}", journal::kJournalDir, journal::ContentsFileName(number));
  if (auto h = hook_->Before(Step::kJournalCreate, file); !h)
    return JournalError(*root_, "creating", file, h.error().errno_value);
  // 0600 and the group root's, whatever the umask and whoever reads the journal file beside it.
  int fd = OpenBeneath(root_->fd(), file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return JournalError(*root_, "creating", file, errno);
  sys::UniqueFd out(fd);
  if (::fchmod(fd, 0600) != 0) return JournalError(*root_, "creating", file, errno);
  std::string text = JsonText(record, -1) + "\n";
  std::string_view rest = text;
  while (!rest.empty()) {
    ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return JournalError(*root_, "writing", file, n < 0 ? errno : EIO);
    rest.remove_prefix(static_cast<size_t>(n));
  }
  if (auto h = hook_->Before(Step::kJournalSync, file); !h)
    return JournalError(*root_, "syncing", file, h.error().errno_value);
  if (::fsync(fd) != 0) return JournalError(*root_, "syncing", file, errno);
  int dir = OpenBeneath(root_->fd(), std::string(journal::kJournalDir), O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (dir < 0) return JournalError(*root_, "opening", journal::kJournalDir, errno);
  sys::UniqueFd dir_fd(dir);
  if (::fsync(dir_fd.get()) != 0) return JournalError(*root_, "syncing", journal::kJournalDir, errno);
  return {};
}

Result<JournalWriter> JournalWriter::Reopen(const sys::Root& root, StepHook& hook, const std::string& file) {
  int fd = OpenBeneath(root.fd(), file, O_RDWR | O_APPEND | O_CLOEXEC, 0);
  if (fd < 0) return JournalError(root, "opening", file, errno);
  sys::UniqueFd journal_fd(fd);
  std::string content;
  char buf[65536];
  for (off_t at = 0;;) {
    ssize_t n = ::pread(fd, buf, sizeof(buf), at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return JournalError(root, "reading", file, errno);
    if (n == 0) break;
    content.append(buf, static_cast<size_t>(n));
    at += n;
    if (content.size() > journal::kMaxJournalFileBytes) return JournalError(root, "reading", file, EFBIG);
  }
  // Cut a torn last line by the rule readers skip it by, so the next record starts a line and
  // the torn one does not end up in the middle of the file, where it would make it unreadable.
  size_t keep = journal::IntactLength(content);
  if (keep != content.size() && ::ftruncate(fd, static_cast<off_t>(keep)) != 0)
    return JournalError(root, "truncating", file, errno);
  return JournalWriter(root, hook, file, std::move(journal_fd));
}

Result<void> JournalWriter::Append(const nlohmann::ordered_json& record) {
  std::string line = JsonText(record, -1) + "\n";
  if (auto h = hook_->Before(Step::kJournalAppend, file_); !h)
    return JournalError(*root_, "writing", file_, h.error().errno_value);
  off_t start = ::lseek(fd_.get(), 0, SEEK_END);
  // A record that failed must not stay in the file, whole or in part: half a record would glue
  // itself to the next one, and a whole one would still count. A commit whose fsync failed is
  // followed by a rollback, and "rollback" after "commit" makes the journal unreadable.
  auto failed = [&](std::string_view what, int err) {
    if (start >= 0 && ::ftruncate(fd_.get(), start) != 0) {}
    return JournalError(*root_, what, file_, err);
  };
  std::string_view rest = line;
  while (!rest.empty()) {
    ssize_t n = ::write(fd_.get(), rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return failed("writing", n < 0 ? errno : EIO);
    rest.remove_prefix(static_cast<size_t>(n));
  }
  if (auto h = hook_->Before(Step::kJournalSync, file_); !h) return failed("syncing", h.error().errno_value);
  if (::fsync(fd_.get()) != 0) return failed("syncing", errno);
  return {};
}

}  // namespace rocmtune::helper
