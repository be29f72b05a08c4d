#include "helper/state_access.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "helper/daemon_account.h"
#include "journal/journal.h"

namespace rocmtune::helper {
namespace {

constexpr mode_t kSharedDirMode = 0750;

int OpenBeneath(int dirfd, const std::string& path, uint64_t flags) {
  struct open_how how {};
  how.flags = flags | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, dirfd, path.c_str(), &how, sizeof(how)));
}

// Root-owned regular files and directories only: whatever else sits there is not the helper's.
bool Ours(int fd, bool dir) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && st.st_uid == 0 && (dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

// Best effort (ShareJournal's contract): true when `fd` is the helper's and now has `mode`.
bool Share(int fd, bool dir, const StateAccess& access, mode_t mode) {
  return Ours(fd, dir) && SetAccess(fd, access, mode).has_value();
}

}  // namespace

StateAccess StateAccessFor(const sys::Root& root) {
  if (::geteuid() != 0) return {};
  return {DaemonGid(root)};
}

Result<void> SetAccess(int fd, const StateAccess& access, mode_t mode) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Fail(ErrorCode::kIo, "fstat", errno);
  // Each call only when it changes something: a journal on a read-only mount is still read by
  // recovery, which must not fail for a chmod that changes nothing.
  if (access.group && st.st_gid != *access.group && ::fchown(fd, static_cast<uid_t>(-1), *access.group) != 0)
    return Fail(ErrorCode::kIo, "fchown", errno);
  if ((st.st_mode & 07777) != mode && ::fchmod(fd, mode) != 0) return Fail(ErrorCode::kIo, "fchmod", errno);
  return {};
}

void ShareJournal(const sys::Root& root) {
  StateAccess access = StateAccessFor(root);
  if (!access.group) return;
  int dir = OpenBeneath(root.fd(), std::string(journal::kJournalDir), O_RDONLY | O_DIRECTORY);
  if (dir < 0) return;
  sys::UniqueFd dir_fd(dir);
  if (!Share(dir, true, access, kSharedDirMode)) return;
  auto names = root.ListDir(journal::kJournalDir);
  if (!names) return;
  for (const std::string& name : *names) {
    int fd = OpenBeneath(dir, name, O_RDONLY);
    if (fd < 0) continue;
    sys::UniqueFd file(fd);
    // A contents file (journal.h: private files' before/after) stays root's alone: brought back
    // to 0600 root:root should anything have given it away.
    if (name.ends_with(".contents")) {
      if (Ours(fd, false)) static_cast<void>(SetAccess(fd, StateAccess{0}, 0600));  // best effort, as above
      continue;
    }
    Share(fd, false, access, access.FileMode());
  }
}

}  // namespace rocmtune::helper
