#include "helper/lock.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "helper/journal_writer.h"
#include "helper/state_access.h"
#include "journal/journal.h"
#include "journal/writer_probe.h"

namespace rocmtune::helper {
namespace {

int OpenLock(const sys::Root& root, uint64_t flags) {
  struct open_how how {};
  how.flags = flags | O_CLOEXEC | O_NOFOLLOW;
  how.mode = (flags & O_CREAT) ? 0600 : 0;  // openat2(2): EINVAL for a mode without O_CREAT
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  std::string path(journal::kLockFile);
  return static_cast<int>(::syscall(SYS_openat2, root.fd(), path.c_str(), &how, sizeof(how)));
}

// Whether the lock's path still names the file `fd` is open on: a root writer that replaced a
// lock held by another user (below) makes a new file, and whoever locked the old one must take
// the new one instead.
// Only a path that is gone or names another file says no: what cannot be looked at is taken as
// unchanged, so the writer never loops on a lookup that keeps failing.
bool StillTheLock(const sys::Root& root, int fd) {
  int now = OpenLock(root, O_PATH);
  if (now < 0) return errno != ENOENT;
  sys::UniqueFd now_fd(now);
  struct stat a {
  }, b{};
  if (::fstat(fd, &a) != 0 || ::fstat(now, &b) != 0) return true;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// A new, empty lock file (0600, root's) renamed over the old one, for a root writer that found
// the old one held only by processes that are not root: no rocmtune writer runs as anyone but
// root, so those hold it to stall the writers (a lock file of an earlier version was readable by
// the daemon's group, and flock(2) needs only a descriptor open for reading).
Result<void> ReplaceLock(const sys::Root& root) {
  const std::string_view lock = journal::kLockFile;
  const std::string dir_path(lock.substr(0, lock.rfind('/'))), name(lock.substr(lock.rfind('/') + 1));
  const std::string tmp_name = name + ".new";
  struct open_how how {};
  how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  int dir = static_cast<int>(::syscall(SYS_openat2, root.fd(), dir_path.c_str(), &how, sizeof(how)));
  if (dir < 0) return Fail(ErrorCode::kIo, fmt::format("{}: {}", root.Display(dir_path), std::strerror(errno)), errno);
  sys::UniqueFd dir_fd(dir);
  ::unlinkat(dir, tmp_name.c_str(), 0);
  int made = ::openat(dir, tmp_name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (made < 0) {
    int err = errno;
    return Fail(ErrorCode::kIo, fmt::format("{}/{}: {}", root.Display(dir_path), tmp_name, std::strerror(err)), err);
  }
  sys::UniqueFd made_fd(made);
  if (::fchown(made, 0, 0) != 0 || ::fchmod(made, 0600) != 0 ||
      ::renameat(dir, tmp_name.c_str(), dir, name.c_str()) != 0) {
    int err = errno;
    ::unlinkat(dir, tmp_name.c_str(), 0);
    return Fail(ErrorCode::kIo, fmt::format("replacing {}: {}", root.Display(lock), std::strerror(err)), err);
  }
  return {};
}

}  // namespace

Result<WriterLock> WriterLock::Acquire(const sys::Root& root, StepHook& hook, bool wait) {
  if (auto dir = EnsureJournalDir(root, hook); !dir) return tl::unexpected(dir.error());
  const std::string path(journal::kLockFile);
  const bool as_root = ::geteuid() == 0;
  const auto deadline = std::chrono::steady_clock::now() + kMaxWait;
  // A lock file replaced under us is taken again; one replaced on every look is someone's game.
  int replaced = 0;
  auto again = [&] { return ++replaced <= 100; };
  auto churning = [&] {
    return Fail(ErrorCode::kUnsupported, fmt::format("{} keeps being replaced: not locked", root.Display(path)));
  };
  for (;;) {
    int fd = OpenLock(root, O_RDWR | O_CREAT);
    if (fd < 0)
      return Fail(ErrorCode::kIo, fmt::format("opening {}: {}", root.Display(path), std::strerror(errno)), errno);
    sys::UniqueFd lock_fd(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0)
      return Fail(ErrorCode::kIo, fmt::format("{}: {}", root.Display(path), std::strerror(errno)), errno);
    // Root's alone: an earlier version gave it to the daemon's group (state_access.h).
    if (as_root && (st.st_uid != 0 || st.st_gid != 0 || (st.st_mode & 07777) != 0600) &&
        (::fchown(fd, 0, 0) != 0 || ::fchmod(fd, 0600) != 0))
      return Fail(ErrorCode::kIo, fmt::format("{}: {}", root.Display(path), std::strerror(errno)), errno);
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      if (!StillTheLock(root, fd)) {  // replaced meanwhile: take the new one
        if (again()) continue;
        return churning();
      }
      // Under the lock: no other helper is making journal files meanwhile.
      ShareJournal(root);
      return WriterLock(std::move(lock_fd));
    }
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK)
      return Fail(ErrorCode::kIo, fmt::format("locking {}: {}", root.Display(path), std::strerror(errno)), errno);
    if (!StillTheLock(root, fd)) {
      if (again()) continue;
      return churning();
    }
    auto holders = journal::LockHolders(st.st_dev, st.st_ino);
    bool strangers = as_root && !holders.empty() &&
                     std::all_of(holders.begin(), holders.end(), [](const auto& h) { return h.uid && *h.uid != 0; });
    if (strangers) {
      if (auto made = ReplaceLock(root); !made) return tl::unexpected(made.error());
      if (again()) continue;
      return churning();
    }
    const std::string who = holders.empty() ? std::string() : " (held by " + journal::DescribeHolders(holders) + ")";
    if (!wait) return Fail(ErrorCode::kUnsupported, "another rocmtune transaction is in progress" + who, EWOULDBLOCK);
    if (std::chrono::steady_clock::now() >= deadline)
      return Fail(ErrorCode::kUnsupported,
                  fmt::format("another rocmtune transaction has held {} for over {} s{}", root.Display(path),
                              std::chrono::duration_cast<std::chrono::seconds>(kMaxWait).count(), who),
                  EWOULDBLOCK);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace rocmtune::helper
