#include "helper/lock.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/file.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "helper/journal_writer.h"
#include "helper/state_access.h"
#include "journal/journal.h"

namespace rocmtune::helper {

Result<WriterLock> WriterLock::Acquire(const sys::Root& root, StepHook& hook, bool wait) {
  if (auto dir = EnsureJournalDir(root, hook); !dir) return tl::unexpected(dir.error());
  struct open_how how {};
  how.flags = O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW;
  how.mode = 0600;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  std::string path(journal::kLockFile);
  int fd = static_cast<int>(::syscall(SYS_openat2, root.fd(), path.c_str(), &how, sizeof(how)));
  if (fd < 0)
    return Fail(ErrorCode::kIo, fmt::format("opening {}: {}", root.Display(path), std::strerror(errno)), errno);
  sys::UniqueFd lock_fd(fd);
  while (::flock(lock_fd.get(), LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK)
      return Fail(ErrorCode::kUnsupported, "another rocmtune transaction is in progress", errno);
    return Fail(ErrorCode::kIo, fmt::format("locking {}: {}", root.Display(path), std::strerror(errno)), errno);
  }
  // Under the lock: no other helper is making journal files meanwhile.
  ShareJournal(root, lock_fd.get());
  return WriterLock(std::move(lock_fd));
}

}  // namespace rocmtune::helper
