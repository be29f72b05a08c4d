#include "snapshot/out_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "util/handle.h"

namespace rocmtune::snapshot {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

Error Errno(std::string_view what) {
  int err = errno;
  return Error{ErrorCode::kIo, err, fmt::format("{}: {}", what, std::strerror(err))};
}

// Entry names come from the source tree and from symlink targets; a component that is empty,
// "." or ".." (or that would hold a '/') has no place in a path we make.
bool IsPlainName(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos;
}

std::pair<std::string_view, std::string_view> SplitLast(std::string_view rel) {
  size_t slash = rel.rfind('/');
  if (slash == std::string_view::npos) return {"", rel};
  return {rel.substr(0, slash), rel.substr(slash + 1)};
}

Result<bool> IsEmptyDir(int fd) {
  sys::UniqueFd copy(::openat(fd, ".", kDirFlags));
  if (!copy) return tl::unexpected(Errno("open"));
  Handle<DIR*, ::closedir> dir(::fdopendir(copy.get()));
  if (!dir) return tl::unexpected(Errno("fdopendir"));
  static_cast<void>(copy.Release());  // owned by dir now: closedir closes it
  bool empty = true;
  while (dirent* e = ::readdir(dir.get())) {
    std::string_view name = e->d_name;
    if (name != "." && name != "..") {
      empty = false;
      break;
    }
  }
  return empty;
}

}  // namespace

Result<OutDir> OutDir::Open(const std::string& path) {
  bool created = ::mkdir(path.c_str(), 0700) == 0;
  if (!created && errno != EEXIST) return tl::unexpected(Errno(path));
  // O_NOFOLLOW: OUT itself may have been swapped for a symlink since; from here on the
  // descriptor is the output, wherever its name goes.
  sys::UniqueFd fd(::open(path.c_str(), kDirFlags));
  if (!fd.valid()) {
    if (errno == ELOOP || errno == ENOTDIR)
      return Fail(ErrorCode::kInvalidArgument, fmt::format("{}: exists and is not a directory", path));
    return tl::unexpected(Errno(path));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return tl::unexpected(Errno(path));
  if (created && st.st_uid != ::geteuid())
    return Fail(ErrorCode::kIo, fmt::format("{}: replaced by another user's directory while being created", path));
  if (!created) {
    auto empty = IsEmptyDir(fd.get());
    if (!empty) return tl::unexpected(empty.error());
    if (!*empty) return Fail(ErrorCode::kInvalidArgument, fmt::format("{}: exists and is not empty", path));
  }
  return OutDir(path, std::move(fd), created);
}

Result<int> OutDir::Dir(std::string_view rel_dir) {
  std::vector<std::string_view> names;
  for (size_t start = 0; start < rel_dir.size();) {
    size_t end = std::min(rel_dir.find('/', start), rel_dir.size());
    names.push_back(rel_dir.substr(start, end - start));
    start = end + 1;
  }
  // Writes come in runs under one directory: keep the open components shared with the last one.
  size_t keep = 0;
  while (keep < names.size() && keep < open_.size() && open_[keep].first == names[keep]) ++keep;
  open_.resize(keep);
  for (size_t i = keep; i < names.size(); ++i) {
    std::string name(names[i]);
    if (!IsPlainName(name))
      return Fail(ErrorCode::kInvalidArgument, fmt::format("{}/{}: not a plain path", path_, rel_dir));
    int parent = i == 0 ? fd_.get() : open_.back().second.get();
    // One component at a time: openat(O_NOFOLLOW) refuses a symlink and mkdirat() does not
    // follow one, so a directory swapped for a symlink stops the write instead of redirecting it.
    sys::UniqueFd next(::openat(parent, name.c_str(), kDirFlags));
    if (!next.valid() && errno == ENOENT) {
      if (::mkdirat(parent, name.c_str(), 0755) != 0 && errno != EEXIST)
        return tl::unexpected(Errno(fmt::format("{}/{}", path_, rel_dir)));
      next.Reset(::openat(parent, name.c_str(), kDirFlags));
    }
    if (!next.valid()) return tl::unexpected(Errno(fmt::format("{}/{}", path_, rel_dir)));
    open_.emplace_back(std::move(name), std::move(next));
  }
  return open_.empty() ? fd_.get() : open_.back().second.get();
}

Result<bool> OutDir::WriteFile(std::string_view rel, std::string_view content, int64_t mtime, mode_t mode) {
  if (written_.count(rel)) return false;
  auto [dir_rel, name] = SplitLast(rel);
  if (!IsPlainName(name)) return Fail(ErrorCode::kInvalidArgument, fmt::format("{}/{}: not a plain path", path_, rel));
  auto dir = Dir(dir_rel);
  if (!dir) return tl::unexpected(dir.error());
  std::string display = fmt::format("{}/{}", path_, rel);
  // The descriptor is writable whatever `mode` allows: a 0400 source makes a 0400 copy.
  sys::UniqueFd fd(
      ::openat(*dir, std::string(name).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode & kMaxMode));
  if (!fd.valid()) return tl::unexpected(Errno(display));
  members_ &= mode & kMaxMode;
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return tl::unexpected(Errno(display));
    done += static_cast<size_t>(n);
  }
  // The source's mtime, as the archive keeps it: what the journal's attention compares (a boot
  // file rebuilt after a transaction's commit) must read back the same from the snapshot.
  if (mtime > 0) {
    const struct timespec times[2] = {{0, UTIME_OMIT}, {static_cast<time_t>(mtime), 0}};
    if (::futimens(fd.get(), times) != 0) return tl::unexpected(Errno(display));
  }
  written_.emplace(rel);
  return true;
}

Result<bool> OutDir::Symlink(std::string_view rel, std::string_view target, int64_t /*mtime*/) {
  auto [dir_rel, name] = SplitLast(rel);
  if (!IsPlainName(name)) return Fail(ErrorCode::kInvalidArgument, fmt::format("{}/{}: not a plain path", path_, rel));
  auto dir = Dir(dir_rel);
  if (!dir) return tl::unexpected(dir.error());
  std::string base(name);
  if (::symlinkat(std::string(target).c_str(), *dir, base.c_str()) == 0) return true;
  struct stat st {};
  if (errno == EEXIST && ::fstatat(*dir, base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
    return false;
  return tl::unexpected(Errno(fmt::format("{}/{}", path_, rel)));
}

Result<void> OutDir::Directory(std::string_view rel, mode_t mode) {
  auto dir = Dir(rel);
  if (!dir) return tl::unexpected(dir.error());
  dir_modes_.insert_or_assign(std::string(rel), mode & kMaxMode);
  return {};
}

Result<void> OutDir::Finish() {
  // Deepest first (a child sorts after its parent): a parent narrowed to 0500 or less would
  // otherwise keep a non-root writer from reaching its children.
  for (auto it = dir_modes_.rbegin(); it != dir_modes_.rend(); ++it) {
    auto dir = Dir(it->first);
    if (!dir) return tl::unexpected(dir.error());
    struct stat st {};
    // Within what it was made with (0755 less the umask): never wider than the user asked for.
    if (::fstat(*dir, &st) != 0 || ::fchmod(*dir, st.st_mode & it->second & 07777) != 0)
      return tl::unexpected(Errno(fmt::format("{}/{}", path_, it->first)));
  }
  open_.clear();
  if (created_ && ::fchmod(fd_.get(), ContainerMode(members_, true)) != 0) return tl::unexpected(Errno(path_));
  return {};
}

}  // namespace rocmtune::snapshot
