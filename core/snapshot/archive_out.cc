#include "snapshot/archive_out.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "snapshot/tar_gz.h"
#include "sys/archive_module.h"

namespace rocmtune::snapshot {
namespace {

Error ArchiveErrno(std::string_view what, int err = errno) {
  return Error{ErrorCode::kIo, err, fmt::format("{}: {}", what, std::strerror(err))};
}

// The temporary beside FILE: removed unless Commit() renamed it to FILE.
class TempFile {
 public:
  TempFile(int dir, std::string name, sys::UniqueFd fd) : dir_(dir), name_(std::move(name)), fd_(std::move(fd)) {}
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (!committed_) ::unlinkat(dir_, name_.c_str(), 0);
  }
  int fd() const { return fd_.get(); }
  // RENAME_NOREPLACE: a FILE that appeared since Open() is kept, and this snapshot fails.
  Result<void> Commit(const std::string& name, const std::string& display) {
    if (::renameat2(dir_, name_.c_str(), dir_, name.c_str(), RENAME_NOREPLACE) != 0) {
      if (errno == EEXIST) return Fail(ErrorCode::kInvalidArgument, fmt::format("{}: exists; not replaced", display));
      return tl::unexpected(ArchiveErrno(display));
    }
    committed_ = true;
    ::fsync(dir_);
    return {};
  }

 private:
  int dir_;
  std::string name_;
  sys::UniqueFd fd_;
  bool committed_ = false;
};

Result<std::unique_ptr<TempFile>> MakeTemp(int dir, const std::string& name, const std::string& display) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string temp = fmt::format(".{}.{}-{}.tmp", name, ::getpid(), attempt);
    sys::UniqueFd fd(::openat(dir, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (fd.valid()) return std::make_unique<TempFile>(dir, std::move(temp), std::move(fd));
    if (errno != EEXIST) return tl::unexpected(ArchiveErrno(display));
  }
  return Fail(ErrorCode::kIo, fmt::format("{}: no free temporary name beside it", display));
}

std::string TopName(std::string_view name) {
  for (std::string_view suffix : {".tar.gz", ".tgz", ".gz", ".tar"})
    if (name.ends_with(suffix)) {
      name.remove_suffix(suffix.size());
      break;
    }
  if (name.empty() || name == "." || name == ".." || name.starts_with('.')) return "rocmtune-snapshot";
  return std::string(name);
}

}  // namespace

Result<ArchiveOut> ArchiveOut::Open(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..")
    return Fail(ErrorCode::kInvalidArgument, fmt::format("{}: not a file name", path));
  sys::UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir_fd.valid()) return tl::unexpected(ArchiveErrno(dir));
  struct stat st {};
  if (::fstatat(dir_fd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
    return Fail(ErrorCode::kInvalidArgument, fmt::format("{}: exists; choose a new file name", path));
  if (errno != ENOENT) return tl::unexpected(ArchiveErrno(path));
  return ArchiveOut(path, std::move(dir_fd), name, TopName(name));
}

Result<bool> ArchiveOut::Add(std::string_view rel, Entry entry) {
  // Every component a plain name: no member may land outside the top directory when extracted.
  for (size_t start = 0; start <= rel.size();) {
    size_t end = std::min(rel.find('/', start), rel.size());
    std::string_view part = rel.substr(start, end - start);
    if (part.empty() || part == "." || part == "..")
      return Fail(ErrorCode::kInvalidArgument, fmt::format("{}: not a plain path", rel));
    start = end + 1;
  }
  if (entries_.count(rel)) return false;
  entries_.emplace(std::string(rel), std::move(entry));
  return true;
}

Result<bool> ArchiveOut::WriteFile(std::string_view rel, std::string_view content, int64_t mtime, mode_t mode) {
  return Add(rel, {Kind::kFile, std::string(content), mtime, mode & kMaxMode});
}

Result<bool> ArchiveOut::Symlink(std::string_view rel, std::string_view target, int64_t mtime) {
  return Add(rel, {Kind::kSymlink, std::string(target), mtime, 0777});
}

Result<void> ArchiveOut::Directory(std::string_view rel, mode_t mode) {
  auto added = Add(rel, {Kind::kDirectory, "", 0, mode & kMaxMode});
  if (!added) return tl::unexpected(added.error());
  return {};
}

Result<void> ArchiveOut::WriteTo(int fd) const {
  // Directories take the newest mtime of the source: deterministic, and no clock of this run.
  int64_t newest = 0;
  for (const auto& [rel, e] : entries_) newest = std::max(newest, e.mtime);
  std::map<std::string, const Entry*, std::less<>> members;  // archive path -> entry
  static const Entry kDir{Kind::kDirectory, "", 0, 0755};
  members.emplace(top_, &kDir);
  // The directories named by Directory() first: a parent made for a file keeps their mode.
  for (const auto& [rel, e] : entries_)
    if (e.kind == Kind::kDirectory) members.emplace(fmt::format("{}/{}", top_, rel), &e);
  for (const auto& [rel, e] : entries_) {
    for (size_t slash = rel.find('/'); slash != std::string::npos; slash = rel.find('/', slash + 1))
      members.emplace(fmt::format("{}/{}", top_, rel.substr(0, slash)), &kDir);
    members.emplace(fmt::format("{}/{}", top_, rel), &e);
  }
  std::vector<TarMember> tar;
  tar.reserve(members.size());
  for (const auto& [path, e] : members) {
    TarKind kind = e->kind == Kind::kDirectory ? TarKind::kDirectory
                   : e->kind == Kind::kFile    ? TarKind::kFile
                                               : TarKind::kSymlink;
    tar.push_back({path.c_str(), kind, e->data.c_str(), e->data.size(), e->kind == Kind::kDirectory ? newest : e->mtime,
                   e->mode});
  }
  // libarchive only now (snapshot/tar_gz.h): every other command starts without it.
  auto module = sys::ArchiveModule::Load();
  if (!module)
    return Fail(ErrorCode::kIo, fmt::format("{}: cannot load the archive writer: {}", path_, module.error().message));
  auto symbol = module->Symbol(kWriteTarGzSymbol);
  if (!symbol) return Fail(ErrorCode::kIo, fmt::format("{}: {}", path_, symbol.error().message));
  auto write = reinterpret_cast<WriteTarGzFn>(*symbol);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
  std::array<char, 512> why{};
  switch (write(fd, tar.data(), tar.size(), why.data(), why.size())) {
    case TarStatus::kOk: return {};
    case TarStatus::kNoMemory: return Fail(ErrorCode::kIo, "libarchive: out of memory");
    case TarStatus::kFailed: break;
  }
  return Fail(ErrorCode::kIo, fmt::format("{}: {}", path_, why.data()));
}

mode_t ContainerMode(mode_t members, bool directory) {
  // umask(2) has no read-only form: set and restore (the snapshot's writer is single-threaded).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  mode_t mode = 0600;
  if (members & S_IRGRP) mode |= S_IRGRP;
  if (members & S_IROTH) mode |= S_IROTH;
  if (directory) mode |= S_IXUSR | ((mode & S_IRGRP) ? S_IXGRP : 0) | ((mode & S_IROTH) ? S_IXOTH : 0);
  return mode & ~mask;
}

Result<void> ArchiveOut::Finish() {
  auto temp = MakeTemp(dir_.get(), name_, path_);
  if (!temp) return tl::unexpected(temp.error());
  if (auto r = WriteTo((*temp)->fd()); !r) return r;
  mode_t members = 0777;
  for (const auto& [rel, entry] : entries_)
    if (entry.kind == Kind::kFile) members &= entry.mode;
  if (::fchmod((*temp)->fd(), ContainerMode(members, false)) != 0 || ::fsync((*temp)->fd()) != 0)
    return tl::unexpected(ArchiveErrno(path_));
  return (*temp)->Commit(name_, path_);
}

}  // namespace rocmtune::snapshot
