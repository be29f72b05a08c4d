#include "tree_snapshot.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "sys/unique_fd.h"
#include "util/handle.h"

namespace rocmtune::testing {
namespace {

bool Ignored(const std::string& path, const std::vector<std::string_view>& ignore) {
  for (std::string_view prefix : ignore)
    if (path == prefix || (path.starts_with(prefix) && path.size() > prefix.size() && path[prefix.size()] == '/'))
      return true;
  return false;
}

[[noreturn]] void Throw(std::string_view what, std::string_view path) {
  throw std::runtime_error(std::string(what) + " " + std::string(path) + ": " + std::strerror(errno));
}

// Walks by descriptor (openat, O_NOFOLLOW): fast enough for the crash tests' thousands of
// snapshots, and never follows a symlink out of the tree. Closes `fd`.
void SnapshotDir(int fd, const std::string& rel, TreeSnapshot& out) {
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    Throw("opendir", rel);
  }
  Handle<DIR*, ::closedir> dir(d);
  while (dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    std::string sub = rel.empty() ? std::string(name) : rel + "/" + std::string(name);
    struct stat st {};
    if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) Throw("lstat", sub);
    TreeEntry entry;
    entry.mode = st.st_mode & 07777;
    entry.st_mode = st.st_mode;
    entry.mtime = st.st_mtim;
    if (S_ISLNK(st.st_mode)) {
      entry.type = 'l';
      char target[4096];
      ssize_t n = ::readlinkat(::dirfd(d), e->d_name, target, sizeof(target));
      if (n < 0) Throw("readlink", sub);
      entry.content.assign(target, static_cast<size_t>(n));
    } else if (S_ISDIR(st.st_mode)) {
      entry.type = 'd';
      int child = ::openat(::dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
      if (child < 0) Throw("open", sub);
      SnapshotDir(child, sub, out);
    } else if (S_ISREG(st.st_mode)) {
      entry.type = 'f';
      sys::UniqueFd file(::openat(::dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
      if (!file) Throw("open", sub);
      entry.content = ReadFdAll(file.get(), sub);
    } else {
      entry.type = 'o';
    }
    out[sub] = std::move(entry);
  }
}

}  // namespace

TreeSnapshot SnapshotTree(const std::string& root) {
  TreeSnapshot out;
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) Throw("open", root);
  SnapshotDir(fd, "", out);  // takes the descriptor
  return out;
}

std::vector<std::string> ChangedPaths(const TreeSnapshot& before, const TreeSnapshot& after, bool compare_mtime,
                                      const std::vector<std::string_view>& ignore) {
  std::vector<std::string> changed;
  auto differs = [&](const TreeEntry& a, const TreeEntry& b) {
    if (a.type != b.type || a.content != b.content || a.mode != b.mode) return true;
    return compare_mtime && (a.mtime.tv_sec != b.mtime.tv_sec || a.mtime.tv_nsec != b.mtime.tv_nsec);
  };
  for (const auto& [path, entry] : before) {
    if (Ignored(path, ignore)) continue;
    auto it = after.find(path);
    if (it == after.end() || differs(entry, it->second)) changed.push_back(path);
  }
  for (const auto& [path, entry] : after)
    if (!Ignored(path, ignore) && !before.contains(path)) changed.push_back(path);
  std::sort(changed.begin(), changed.end());
  return changed;
}

std::string ReadFdAll(int fd, std::string_view path) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) Throw("read", path);
    if (n == 0) return out;
    out.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace rocmtune::testing
