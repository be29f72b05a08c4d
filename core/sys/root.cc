#include "sys/root.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "util/handle.h"

namespace rocmtune::sys {
namespace {

std::string_view Relative(std::string_view rel) {
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  return rel.empty() ? std::string_view(".") : rel;
}

// glibc 2.36 has no wrapper for openat2.
int OpenAt2(int dirfd, std::string_view rel, uint64_t flags, uint64_t resolve) {
  struct open_how how {};
  how.flags = flags;
  how.resolve = resolve;
  std::string path(rel);
  long fd;
  do {
    fd = ::syscall(SYS_openat2, dirfd, path.c_str(), &how, sizeof(how));
  } while (fd < 0 && errno == EAGAIN);  // RESOLVE_IN_ROOT retries on concurrent renames
  return static_cast<int>(fd);
}

constexpr uint64_t kResolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;

ErrorCode CodeFor(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR: return ErrorCode::kNotFound;
    case EXDEV: return ErrorCode::kEscapesRoot;
    case ENOSYS: return ErrorCode::kUnsupported;
    default: return ErrorCode::kIo;
  }
}

std::string Describe(int err) {
  if (err == ELOOP) return "too many levels of symbolic links (a symlink loop?)";
  if (err == ENOSYS) return "openat2(2) is not supported by this kernel (Linux >= 5.6 needed)";
  return std::strerror(err);
}

EntryType TypeFromMode(mode_t mode) {
  if (S_ISREG(mode)) return EntryType::kFile;
  if (S_ISDIR(mode)) return EntryType::kDirectory;
  if (S_ISLNK(mode)) return EntryType::kSymlink;
  return EntryType::kOther;
}

}  // namespace

std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty() || a == ".") return std::string(b);
  if (b.empty()) return std::string(a);
  std::string out(a);
  if (out.back() != '/') out.push_back('/');
  out.append(b.front() == '/' ? b.substr(1) : b);
  return out;
}

Result<Root> Root::FromFd(UniqueFd fd, std::string path) {
  struct stat st {
  }, slash{};
  if (::fstat(fd.get(), &st) != 0) {
    int err = errno;
    return Fail(ErrorCode::kIo, fmt::format("cannot examine root {}: {}", path, Describe(err)), err);
  }
  if (!S_ISDIR(st.st_mode)) return Fail(ErrorCode::kInvalidArgument, fmt::format("root {} is not a directory", path));
  RootId id{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
  bool live = ::stat("/", &slash) == 0 && slash.st_dev == st.st_dev && slash.st_ino == st.st_ino;
  if (live) path.assign(1, '/');  // (not = "/": GCC 12 -Wrestrict false positive)
  return Root(std::move(path), std::move(fd), id, live);
}

Result<Root> Root::Open(std::string path) {
  if (path.empty()) return Fail(ErrorCode::kInvalidArgument, "root path is empty");
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  int fd = ::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    return Fail(CodeFor(err), fmt::format("cannot open root {}: {}", path, Describe(err)), err);
  }
  return FromFd(UniqueFd(fd), std::move(path));
}

Result<Root> Root::Adopt(UniqueFd fd, std::string path) {
  if (!fd.valid()) return Fail(ErrorCode::kInvalidArgument, "no root descriptor");
  // O_PATH descriptors cannot be re-opened by fcntl; a fresh O_PATH of "." beneath it can.
  int own = OpenAt2(fd.get(), ".", O_PATH | O_DIRECTORY | O_CLOEXEC, kResolve);
  if (own < 0) {
    int err = errno;
    return Fail(ErrorCode::kInvalidArgument, fmt::format("root descriptor for {}: {}", path, Describe(err)), err);
  }
  return FromFd(UniqueFd(own), std::move(path));
}

Result<Root> Root::Duplicate() const {
  int fd = ::fcntl(fd_.get(), F_DUPFD_CLOEXEC, 0);
  if (fd < 0) {
    int err = errno;
    return Fail(ErrorCode::kIo, fmt::format("duplicating the root {}: {}", path_, Describe(err)), err);
  }
  Root copy(path_, UniqueFd(fd), id_, live_);
  copy.supplement_ = supplement_;
  return copy;
}

std::optional<EntryType> Root::Supplemented(std::string_view rel) const {
  if (!supplement_) return std::nullopt;
  rel = Relative(rel);
  if (supplement_->files.contains(rel)) return EntryType::kFile;
  if (supplement_->dirs.contains(rel)) return EntryType::kDirectory;
  size_t slash = rel.rfind('/');
  if (slash != std::string_view::npos && supplement_->dirs.contains(rel.substr(0, slash))) return EntryType::kMissing;
  return std::nullopt;
}

std::string Root::Display(std::string_view rel) const {
  rel = Relative(rel);
  if (rel == ".") return path_;
  return IsLive() ? fmt::format("/{}", rel) : fmt::format("{}/{}", path_, rel);
}

Result<UniqueFd> Root::Open(std::string_view rel, int flags) const {
  int fd = OpenAt2(fd_.get(), Relative(rel), static_cast<uint64_t>(flags | O_CLOEXEC), kResolve);
  // systemd's RestrictSUIDSGID= (rocmtuned.service) answers openat2 with ENOSYS: its seccomp
  // filter cannot look into struct open_how. On the live root RESOLVE_IN_ROOT changes nothing
  // (".." and absolute symlinks end at "/" either way), so openat(2) resolves the same path;
  // only magic links (/proc/PID/fd/N) are no longer refused. Any other root keeps failing.
  if (fd < 0 && errno == ENOSYS && live_) {
    std::string path(Relative(rel));
    fd = ::openat(fd_.get(), path.c_str(), flags | O_CLOEXEC);
  }
  if (fd < 0) {
    int err = errno;
    return Fail(CodeFor(err), fmt::format("{}: {}", Display(rel), Describe(err)), err);
  }
  return UniqueFd(fd);
}

Result<UniqueFd> Root::OpenRegular(std::string_view rel) const {
  auto not_regular = [&] { return Fail(ErrorCode::kInvalidData, fmt::format("{}: not a regular file", Display(rel))); };
  auto stat_of = [&](int fd) -> Result<struct stat> {
    struct stat st {};
    if (::fstat(fd, &st) == 0) return st;
    int err = errno;
    return Fail(ErrorCode::kIo, fmt::format("{}: {}", Display(rel), Describe(err)), err);
  };
  if (::geteuid() != 0) {
    // Nothing this user may open acts by being opened; O_NONBLOCK keeps a FIFO from hanging us.
    auto fd = Open(rel, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (!fd) return fd;
    auto st = stat_of(fd->get());
    if (!st) return tl::unexpected(st.error());
    if (!S_ISREG(st->st_mode)) return not_regular();
    return fd;
  }
  // Root: a tree (a world, a --root directory, a snapshot unpacked by hand) may hold device nodes
  // whose open(2) alone acts (a watchdog starts counting, a tape rewinds). The entry is looked up
  // once as O_PATH, which opens nothing, and only a regular file is then opened for reading,
  // through /proc/self/fd: the very file looked at, not a second lookup someone could swap.
  auto path = Open(rel, O_PATH);
  if (!path) return path;
  auto st = stat_of(path->get());
  if (!st) return tl::unexpected(st.error());
  if (!S_ISREG(st->st_mode)) return not_regular();
  std::string proc = fmt::format("/proc/self/fd/{}", path->get());
  int raw = ::open(proc.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (raw >= 0) return UniqueFd(raw);
  if (errno != ENOENT) {
    int err = errno;
    return Fail(CodeFor(err), fmt::format("{}: {}", Display(rel), Describe(err)), err);
  }
  // No /proc mounted: the path again, and it must still be the file looked at.
  auto fd = Open(rel, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (!fd) return fd;
  auto again = stat_of(fd->get());
  if (!again) return tl::unexpected(again.error());
  if (!S_ISREG(again->st_mode) || again->st_dev != st->st_dev || again->st_ino != st->st_ino) return not_regular();
  return fd;
}

Result<std::string> Root::ReadFile(std::string_view rel, size_t max_bytes) const {
  if (auto kind = Supplemented(rel)) {
    auto file = supplement_->files.find(Relative(rel));
    if (*kind == EntryType::kMissing)
      return Fail(ErrorCode::kNotFound, fmt::format("{}: {}", Display(rel), Describe(ENOENT)), ENOENT);
    if (file == supplement_->files.end())
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: not a regular file", Display(rel)));
    if (file->second.size() > max_bytes)
      return Fail(ErrorCode::kTooLarge, fmt::format("{}: larger than {} bytes, not read", Display(rel), max_bytes));
    return file->second;
  }
  auto fd = OpenRegular(rel);
  if (!fd) return tl::unexpected(fd.error());

  std::string out;
  char buf[8192];
  while (true) {
    ssize_t n = ::read(fd->get(), buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      return Fail(ErrorCode::kIo, fmt::format("{}: read failed: {}", Display(rel), Describe(err)), err);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > max_bytes)
      return Fail(ErrorCode::kTooLarge, fmt::format("{}: larger than {} bytes, not read", Display(rel), max_bytes));
  }
  return out;
}

Result<std::vector<std::string>> Root::ListDir(std::string_view rel) const {
  if (auto kind = Supplemented(rel)) {
    if (*kind == EntryType::kDirectory) return supplement_->dirs.find(Relative(rel))->second;
    int err = *kind == EntryType::kMissing ? ENOENT : ENOTDIR;
    return Fail(CodeFor(err), fmt::format("{}: {}", Display(rel), Describe(err)), err);
  }
  auto fd = Open(rel, O_RDONLY | O_DIRECTORY);
  if (!fd) return tl::unexpected(fd.error());
  DIR* dir = ::fdopendir(fd->get());
  if (!dir) {
    int err = errno;
    return Fail(ErrorCode::kIo, fmt::format("{}: {}", Display(rel), Describe(err)), err);
  }
  static_cast<void>(fd->Release());  // owned by dir now: closedir closes it
  Handle<DIR*, ::closedir> guard(dir);
  std::vector<std::string> names;
  errno = 0;
  while (struct dirent* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

EntryType Root::TypeOf(std::string_view rel) const {
  if (auto kind = Supplemented(rel)) return *kind;
  rel = Relative(rel);
  size_t slash = rel.rfind('/');
  std::string_view parent = slash == std::string_view::npos ? "." : rel.substr(0, slash);
  std::string name(slash == std::string_view::npos ? rel : rel.substr(slash + 1));
  auto dir = Open(parent, O_PATH | O_DIRECTORY);
  if (!dir) return EntryType::kMissing;
  struct stat st {};
  if (::fstatat(dir->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return EntryType::kMissing;
  return TypeFromMode(st.st_mode);
}

EntryType Root::ResolvedTypeOf(std::string_view rel) const {
  if (auto kind = Supplemented(rel)) return *kind;
  auto fd = Open(rel, O_PATH);
  if (!fd) return EntryType::kMissing;
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return EntryType::kMissing;
  return TypeFromMode(st.st_mode);
}

Result<std::string> Root::ReadLink(std::string_view rel) const {
  rel = Relative(rel);
  size_t slash = rel.rfind('/');
  std::string_view parent = slash == std::string_view::npos ? "." : rel.substr(0, slash);
  std::string name(slash == std::string_view::npos ? rel : rel.substr(slash + 1));
  auto dir = Open(parent, O_PATH | O_DIRECTORY);
  if (!dir) return tl::unexpected(dir.error());
  char buf[4096];
  ssize_t n = ::readlinkat(dir->get(), name.c_str(), buf, sizeof(buf) - 1);
  if (n < 0) {
    int err = errno;
    return Fail(CodeFor(err), fmt::format("{}: {}", Display(rel), Describe(err)), err);
  }
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace rocmtune::sys
