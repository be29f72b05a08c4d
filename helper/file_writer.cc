#include "helper/file_writer.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "knobs/sysfs_attributes.h"
#include "plan/owned_paths.h"

namespace rocmtune::helper {
namespace {

constexpr uint64_t kFileResolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
// sysfs reaches a device through the class symlink (class/drm/card0 -> ../../devices/...);
// those links are followed, beneath the root's sys/ only.
constexpr uint64_t kDeviceDirResolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
// What sysfs's own attributes are written with: on any other file system (a world) the file is
// emptied first, on sysfs a store never needs it.
constexpr long kSysfsMagic = 0x62656572;  // SYSFS_MAGIC, <linux/magic.h>
constexpr size_t kMaxRead = 4 << 20;
// Every file rocmtune creates is read by everyone (login shells source profile.d, modprobe runs
// as the user that loads the module); none is executable or writable by others.
constexpr mode_t kFileMode = 0644;
constexpr mode_t kDirMode = 0755;

int OpenAt2(int dirfd, std::string_view rel, uint64_t flags, mode_t mode, uint64_t resolve) {
  struct open_how how {};
  how.flags = flags;
  how.mode = mode;
  how.resolve = resolve;
  std::string path(rel.empty() ? "." : rel);
  long fd;
  do {
    fd = ::syscall(SYS_openat2, dirfd, path.c_str(), &how, sizeof(how));
  } while (fd < 0 && errno == EAGAIN);
  return static_cast<int>(fd);
}

tl::unexpected<Error> Errno(std::string_view what, const sys::Root& root, std::string_view path, int err) {
  std::string why = err == ELOOP || err == EXDEV ? "a symlink or \"..\" on the path (refused)" : std::strerror(err);
  return Fail(err == ENOENT  ? ErrorCode::kNotFound
              : err == EXDEV ? ErrorCode::kEscapesRoot
                             : ErrorCode::kIo,
              fmt::format("{} {}: {}", what, root.Display(path), why), err);
}

Result<void> WriteAll(int fd, std::string_view content) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Fail(ErrorCode::kIo, "", errno);
    if (n == 0) return Fail(ErrorCode::kIo, "", EIO);
    content.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

Result<std::string> ReadAll(int fd, size_t max) {
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Fail(ErrorCode::kIo, "", errno);
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > max) return Fail(ErrorCode::kTooLarge, "", EFBIG);
  }
  return out;
}

// amdgpu refuses a power attribute's store with -EPERM while the device is in a GPU reset or
// suspended (amdgpu_pm_dev_state_check, drivers/gpu/drm/amd/pm/amdgpu_pm.c); EBUSY and EAGAIN are
// what other stores say for "not now". Those are tried again, a few times with a doubling pause
// (50 + 100 + 200 + 400 ms: under a second in all, so a unit's start or a client never waits
// long); any other error is final at once.
constexpr int kAttributeTries = 5;
constexpr std::chrono::milliseconds kFirstPause{50};

bool DeviceBusy(int err) { return err == EPERM || err == EBUSY || err == EAGAIN; }

std::chrono::milliseconds TotalPause() {
  std::chrono::milliseconds total{0};
  for (int i = 0; i + 1 < kAttributeTries; ++i) total += kFirstPause * (1 << i);
  return total;
}

}  // namespace

std::string_view ParentOf(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string FileWriter::TemporaryName(std::string_view path) { return plan::TemporaryName(path); }

Result<sys::UniqueFd> FileWriter::OpenDir(std::string_view dir) const {
  int fd = OpenAt2(root_.fd(), dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, kFileResolve);
  if (fd < 0) return Errno("opening directory", root_, dir, errno);
  return sys::UniqueFd(fd);
}

Result<void> FileWriter::SyncDir(const sys::UniqueFd& dir, std::string_view path) {
  if (auto hook = hook_.Before(Step::kDirSync, path); !hook)
    return Errno("syncing the directory of", root_, path, hook.error().errno_value);
  if (::fsync(dir.get()) != 0) return Errno("syncing the directory of", root_, path, errno);
  return {};
}

Result<std::optional<std::string>> FileWriter::Read(std::string_view path) const {
  int fd = OpenAt2(root_.fd(), path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0, kFileResolve);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return Errno("reading", root_, path, errno);
  }
  sys::UniqueFd file(fd);
  struct stat st {};
  if (::fstat(file.get(), &st) != 0) return Errno("reading", root_, path, errno);
  if (!S_ISREG(st.st_mode))
    return Fail(ErrorCode::kInvalidData, fmt::format("{} is not a regular file", root_.Display(path)));
  auto content = ReadAll(file.get(), kMaxRead);
  if (!content) return Errno("reading", root_, path, content.error().errno_value);
  return std::optional<std::string>(std::move(*content));
}

Result<sys::UniqueFd> FileWriter::OpenAttribute(std::string_view path, int flags) const {
  constexpr std::string_view kSys = "sys/";
  size_t slash = path.rfind('/');
  if (!path.starts_with(kSys) || slash == std::string_view::npos || slash < kSys.size())
    return Fail(ErrorCode::kEscapesRoot,
                fmt::format("{} is not an attribute under sys/; not opened", root_.Display(path)));
  int sys_fd = OpenAt2(root_.fd(), "sys", O_PATH | O_DIRECTORY | O_CLOEXEC, 0, kFileResolve);
  if (sys_fd < 0) return Errno("opening", root_, path, errno);
  sys::UniqueFd sys_dir(sys_fd);
  std::string_view device = path.substr(kSys.size(), slash - kSys.size());
  int dev_fd = OpenAt2(sys_dir.get(), device, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, kDeviceDirResolve);
  if (dev_fd < 0) return Errno("opening", root_, path, errno);
  sys::UniqueFd dev_dir(dev_fd);
  int fd = OpenAt2(dev_dir.get(), path.substr(slash + 1), flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0,
                   kFileResolve);
  if (fd < 0) return Errno("opening", root_, path, errno);
  sys::UniqueFd file(fd);
  struct stat st {};
  if (::fstat(file.get(), &st) != 0) return Errno("opening", root_, path, errno);
  if (!S_ISREG(st.st_mode))
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{} is not a regular file; not an attribute", root_.Display(path)));
  if (st.st_nlink != 1)
    return Fail(ErrorCode::kEscapesRoot, fmt::format("{} has {} hard links; a sysfs attribute has one (refused)",
                                                     root_.Display(path), st.st_nlink));
  return file;
}

Result<std::string> FileWriter::ReadAttribute(std::string_view path) const {
  auto file = OpenAttribute(path, O_RDONLY);
  if (!file) return tl::unexpected(file.error());
  auto content = ReadAll(file->get(), 64 << 10);
  if (!content) return Errno("reading", root_, path, content.error().errno_value);
  return *content;
}

Result<std::vector<std::string>> FileWriter::MissingParents(std::string_view path) const {
  std::vector<std::string> missing;
  for (std::string_view dir = ParentOf(path); !dir.empty(); dir = ParentOf(dir)) {
    if (sys::UniqueFd fd(OpenAt2(root_.fd(), dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, kFileResolve)); fd) break;
    if (errno != ENOENT) return Errno("opening directory", root_, dir, errno);
    missing.insert(missing.begin(), std::string(dir));
  }
  return missing;
}

Result<void> FileWriter::Mkdir(std::string_view dir) {
  auto parent = OpenDir(ParentOf(dir));
  if (!parent) return tl::unexpected(parent.error());
  if (auto hook = hook_.Before(Step::kMkdir, dir); !hook)
    return Errno("creating directory", root_, dir, hook.error().errno_value);
  const std::string name(BaseName(dir));
  if (::mkdirat(parent->get(), name.c_str(), kDirMode) != 0) {
    if (errno != EEXIST) return Errno("creating directory", root_, dir, errno);
  } else {
    // The mode is rocmtune's, not the caller's umask (sudo keeps it: 077 would make 0700).
    int made = OpenAt2(parent->get(), name, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, kFileResolve);
    if (made < 0) return Errno("creating directory", root_, dir, errno);
    sys::UniqueFd made_fd(made);
    if (::fchmod(made_fd.get(), kDirMode) != 0) return Errno("creating directory", root_, dir, errno);
  }
  return SyncDir(*parent, dir);
}

Result<bool> FileWriter::RmdirIfEmpty(std::string_view dir) {
  auto parent = OpenDir(ParentOf(dir));
  if (!parent) {
    if (parent.error().code == ErrorCode::kNotFound) return true;
    return tl::unexpected(parent.error());
  }
  // Look first: on a read-only file system rmdir(2) fails with EROFS even when there is nothing
  // to remove (a rollback after the mkdir itself failed), and a rollback that cannot finish
  // leaves its transaction to be rolled back again by every later run, failing each time.
  struct stat st {};
  if (::fstatat(parent->get(), std::string(BaseName(dir)).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return true;
    return Errno("removing directory", root_, dir, errno);
  }
  if (auto hook = hook_.Before(Step::kRmdir, dir); !hook)
    return Errno("removing directory", root_, dir, hook.error().errno_value);
  if (::unlinkat(parent->get(), std::string(BaseName(dir)).c_str(), AT_REMOVEDIR) != 0) {
    if (errno == ENOTEMPTY || errno == EEXIST) return false;
    if (errno != ENOENT) return Errno("removing directory", root_, dir, errno);
  }
  if (auto synced = SyncDir(*parent, dir); !synced) return tl::unexpected(synced.error());
  return true;
}

Result<void> FileWriter::Replace(std::string_view path, std::string_view content) {
  auto dir = OpenDir(ParentOf(path));
  if (!dir) return tl::unexpected(dir.error());
  const std::string name(BaseName(path));
  const std::string tmp(BaseName(TemporaryName(path)));
  struct stat target {};
  bool exists = ::fstatat(dir->get(), name.c_str(), &target, AT_SYMLINK_NOFOLLOW) == 0;
  if (exists && !S_ISREG(target.st_mode))
    return Fail(ErrorCode::kInvalidData, fmt::format("{} is not a regular file; not replaced", root_.Display(path)));

  if (auto hook = hook_.Before(Step::kTempCreate, path); !hook)
    return Errno("writing", root_, path, hook.error().errno_value);
  if (::unlinkat(dir->get(), tmp.c_str(), 0) != 0 && errno != ENOENT) return Errno("writing", root_, path, errno);
  int fd = ::openat(dir->get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, kFileMode);
  if (fd < 0) return Errno("writing", root_, path, errno);
  sys::UniqueFd file(fd);
  auto fail = [&](int err) {
    ::unlinkat(dir->get(), tmp.c_str(), 0);
    return Errno("writing", root_, path, err);
  };
  // The new file keeps the old one's permissions and owner (an admin may have made it 0600);
  // a file rocmtune creates gets kFileMode whatever the caller's umask.
  if (::fchmod(file.get(), exists ? target.st_mode & 07777 : kFileMode) != 0) return fail(errno);
  if (exists && ::geteuid() == 0 && ::fchown(file.get(), target.st_uid, target.st_gid) != 0) return fail(errno);
  if (auto hook = hook_.Before(Step::kTempWrite, path); !hook) return fail(hook.error().errno_value);
  if (auto written = WriteAll(file.get(), content); !written) return fail(written.error().errno_value);
  if (auto hook = hook_.Before(Step::kTempSync, path); !hook) return fail(hook.error().errno_value);
  if (::fsync(file.get()) != 0) return fail(errno);
  if (auto hook = hook_.Before(Step::kRename, path); !hook) return fail(hook.error().errno_value);
  if (::renameat(dir->get(), tmp.c_str(), dir->get(), name.c_str()) != 0) return fail(errno);
  return SyncDir(*dir, path);
}

Result<void> FileWriter::Remove(std::string_view path) {
  auto dir = OpenDir(ParentOf(path));
  if (!dir) {
    if (dir.error().code == ErrorCode::kNotFound) return {};
    return tl::unexpected(dir.error());
  }
  if (auto hook = hook_.Before(Step::kUnlink, path); !hook)
    return Errno("removing", root_, path, hook.error().errno_value);
  if (::unlinkat(dir->get(), std::string(BaseName(path)).c_str(), 0) != 0) {
    if (errno == ENOENT) return {};
    return Errno("removing", root_, path, errno);
  }
  return SyncDir(*dir, path);
}

Result<void> FileWriter::RemoveTemporary(std::string_view path) {
  auto dir = OpenDir(ParentOf(path));
  if (!dir) return {};  // no directory, no temporary
  const std::string tmp(BaseName(TemporaryName(path)));
  // Look first, as in RmdirIfEmpty: unlink(2) of a missing name fails with EROFS on a read-only
  // file system, and rollback tries this for every file of the transaction.
  struct stat st {};
  if (::fstatat(dir->get(), tmp.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return {};
    return Errno("removing the temporary of", root_, path, errno);
  }
  if (auto hook = hook_.Before(Step::kUnlink, TemporaryName(path)); !hook)
    return Errno("removing the temporary of", root_, path, hook.error().errno_value);
  if (::unlinkat(dir->get(), tmp.c_str(), 0) != 0 && errno != ENOENT)
    return Errno("removing the temporary of", root_, path, errno);
  return {};
}

Result<void> FileWriter::WriteAttribute(std::string_view path, std::string_view value) {
  std::chrono::milliseconds pause = kFirstPause;
  for (int attempt = 1;; ++attempt) {
    auto written = WriteAttributeOnce(path, value);
    if (written || !DeviceBusy(written.error().errno_value)) return written;
    if (attempt == kAttributeTries) {
      const int err = written.error().errno_value;
      return Fail(ErrorCode::kIo,
                  fmt::format("writing {}: {} after {} tries over {} ms: the device stayed busy (a GPU reset or "
                              "suspend in progress?); run the change again once it is back",
                              root_.Display(path), std::strerror(err), kAttributeTries, TotalPause().count()),
                  err);
    }
    std::this_thread::sleep_for(pause);
    pause *= 2;
  }
}

Result<void> FileWriter::WriteAttributeOnce(std::string_view path, std::string_view value) {
  if (auto hook = hook_.Before(Step::kSysfsWrite, path); !hook)
    return Errno("writing", root_, path, hook.error().errno_value);
  // Never O_TRUNC at open: the checks look at the file first, and only then is a world's plain
  // file emptied.
  auto file = OpenAttribute(path, O_WRONLY);
  if (!file) return tl::unexpected(file.error());
  struct statfs fs {};
  if (::fstatfs(file->get(), &fs) != 0) return Errno("writing", root_, path, errno);
  // A world's plain file holds what the kernel would show after the write: its attribute's codec
  // says what that is (a profile table re-marked, or the value itself).
  std::string shown(value);
  if (fs.f_type != kSysfsMagic) {
    if (const knobs::SysfsAttribute* attr = knobs::FindSysfsAttributeOfPath(path)) {
      auto raw = ReadAttribute(path);
      if (!raw) return tl::unexpected(raw.error());
      shown = attr->codec->Emulate(*raw, value);
    }
    if (::ftruncate(file->get(), 0) != 0) return Errno("writing", root_, path, errno);
  }
  // sysfs takes a value in one write(2).
  ssize_t n = ::write(file->get(), shown.data(), shown.size());
  if (n < 0) return Errno("writing", root_, path, errno);
  if (static_cast<size_t>(n) != shown.size()) return Errno("writing", root_, path, EIO);
  return {};
}

}  // namespace rocmtune::helper
