#include "tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "sys/unique_fd.h"
#include "test_tree.h"
#include "tree_snapshot.h"
#include "util/handle.h"
#include "world_names.h"

namespace fs = std::filesystem;

namespace rocmtune::crash {
namespace {

constexpr std::string_view kJournalPrefix = "var/lib/rocmtune/journal/";
constexpr std::string_view kLock = "var/lib/rocmtune/lock";
// Innermost first: each is dropped when nothing else is left in it.
constexpr std::string_view kHolders[] = {"var/lib/rocmtune/journal", "var/lib/rocmtune", "var/lib", "var"};

[[noreturn]] void Throw(std::string_view what, std::string_view path) {
  throw std::runtime_error(fmt::format("{} {}: {}", what, path, std::strerror(errno)));
}

using Fd = sys::UniqueFd;

int OpenAt(int dir, const char* name, int flags, std::string_view path, mode_t mode = 0) {
  int fd = ::openat(dir, name, flags | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) Throw("open", path);
  return fd;
}

// Names in a directory with their type (from d_type, or lstat where the fs does not say).
template <typename F>
void ForEachEntry(int dir, std::string_view path, F&& f) {
  DIR* d = ::fdopendir(::dup(dir));
  if (!d) Throw("opendir", path);
  Handle<DIR*, ::closedir> held(d);  // closed as well when f or a stat throws
  while (dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st {};
    if (::fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) Throw("stat", name);
    f(e->d_name, st);
  }
}

std::string ReadLinkAt(int dir, const char* name, std::string_view path) {
  char target[4096];
  ssize_t n = ::readlinkat(dir, name, target, sizeof(target));
  if (n < 0) Throw("readlink", path);
  return std::string(target, static_cast<size_t>(n));
}

bool WrittenInPlace(const std::string& rel, const std::vector<std::string>& in_place) {
  for (const std::string& p : in_place)
    if (rel == p || (rel.starts_with(p) && rel[p.size()] == '/')) return true;
  return false;
}

void CopyDir(int from, int to, const std::string& rel, const std::vector<std::string>& in_place) {
  ForEachEntry(from, rel, [&](const char* name, const struct stat& st) {
    std::string sub = rel.empty() ? std::string(name) : rel + "/" + name;
    mode_t perms = st.st_mode & 07777;
    if (S_ISDIR(st.st_mode)) {
      if (::mkdirat(to, name, 0700) != 0) Throw("mkdir", sub);
      Fd src(OpenAt(from, name, O_RDONLY | O_DIRECTORY, sub)), dst(OpenAt(to, name, O_RDONLY | O_DIRECTORY, sub));
      CopyDir(src.get(), dst.get(), sub, in_place);
      if (::fchmod(dst.get(), perms) != 0) Throw("chmod", sub);  // last: the mode may forbid writing
    } else if (S_ISREG(st.st_mode) && !WrittenInPlace(sub, in_place)) {
      if (::linkat(from, name, to, name, 0) != 0) Throw("link", sub);
    } else if (S_ISREG(st.st_mode)) {
      Fd src(OpenAt(from, name, O_RDONLY, sub)), dst(OpenAt(to, name, O_WRONLY | O_CREAT | O_EXCL, sub, 0600));
      std::string data = testing::ReadFdAll(src.get(), sub);
      if (::write(dst.get(), data.data(), data.size()) != static_cast<ssize_t>(data.size())) Throw("write", sub);
      if (::fchmod(dst.get(), perms) != 0) Throw("chmod", sub);
    } else if (S_ISLNK(st.st_mode)) {
      if (::symlinkat(ReadLinkAt(from, name, sub).c_str(), to, name) != 0) Throw("symlink", sub);
    } else {
      throw std::runtime_error(sub + ": not a directory, file or symlink");
    }
  });
}

void RemoveDirContents(int dir, const std::string& path) {
  ForEachEntry(dir, path, [&](const char* name, const struct stat& st) {
    std::string sub = path + "/" + name;
    if (S_ISDIR(st.st_mode)) {
      Fd child(OpenAt(dir, name, O_RDONLY | O_DIRECTORY, sub));
      RemoveDirContents(child.get(), sub);
    }
    if (::unlinkat(dir, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) != 0) Throw("remove", sub);
  });
}

bool HasChildren(const Tree& tree, const std::string& dir) {
  auto it = tree.lower_bound(dir + "/");
  return it != tree.end() && it->first.starts_with(dir + "/");
}

}  // namespace

ScratchDir::ScratchDir() {
  std::error_code ec;
  fs::path base = ::access("/dev/shm", W_OK | X_OK) == 0 ? fs::path("/dev/shm") : fs::temp_directory_path();
  std::string tmpl = (base / "rocmtune-crash-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) Throw("mkdtemp", tmpl);
  path_ = tmpl;
}

ScratchDir::~ScratchDir() {
  try {
    RemoveTree(path_);
  } catch (const std::exception&) {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
}

std::string WorldDir(const std::string& name) { return testing::WorldPath(name); }

void CopyWorld(const std::string& world_dir, const std::string& to) {
  testing::CopyTree(world_dir, to);
  std::ifstream empty_dirs(fs::path(world_dir) / "EMPTY_DIRS");
  for (std::string line; std::getline(empty_dirs, line);)
    if (!line.empty() && line[0] != '#') fs::create_directories(fs::path(to) / line);
}

void RemoveTree(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return;
    Throw("open", path);
  }
  {
    Fd dir(fd);
    RemoveDirContents(dir.get(), path);
  }
  if (::rmdir(path.c_str()) != 0) Throw("rmdir", path);
}

void FreshCopy(const std::string& from, const std::string& to, const std::vector<std::string>& in_place) {
  RemoveTree(to);
  struct stat st {};
  if (::stat(from.c_str(), &st) != 0) Throw("stat", from);
  if (::mkdir(to.c_str(), 0700) != 0) Throw("mkdir", to);
  Fd src(OpenAt(AT_FDCWD, from.c_str(), O_RDONLY | O_DIRECTORY, from));
  Fd dst(OpenAt(AT_FDCWD, to.c_str(), O_RDONLY | O_DIRECTORY, to));
  CopyDir(src.get(), dst.get(), "", in_place);
  if (::fchmod(dst.get(), st.st_mode & 07777) != 0) Throw("chmod", to);
}

Tree Snapshot(const std::string& root) {
  Tree tree;
  for (auto& [path, entry] : testing::SnapshotTree(root))
    if (!path.starts_with(kJournalPrefix) && path != kLock)
      tree.emplace(path, Entry{entry.st_mode, std::move(entry.content)});
  for (std::string_view holder : kHolders) {
    std::string d(holder);
    auto it = tree.find(d);
    if (it != tree.end() && S_ISDIR(it->second.mode) && !HasChildren(tree, d)) tree.erase(it);
  }
  return tree;
}

std::string Difference(const Tree& expected, const Tree& actual) {
  std::vector<std::string> lines;
  for (const auto& [path, entry] : expected) {
    auto it = actual.find(path);
    if (it == actual.end()) lines.push_back(fmt::format("missing: {}", path));
    else if (it->second.mode != entry.mode)
      lines.push_back(fmt::format("mode of {}: {:o}, expected {:o}", path, it->second.mode, entry.mode));
    else if (it->second.data != entry.data)
      lines.push_back(
          fmt::format("content of {}: {} bytes, expected {} bytes", path, it->second.data.size(), entry.data.size()));
  }
  for (const auto& [path, entry] : actual)
    if (!expected.contains(path)) lines.push_back(fmt::format("unexpected: {}", path));
  std::string out;
  for (size_t i = 0; i < lines.size() && i < 8; ++i) out += lines[i] + "\n";
  if (lines.size() > 8) out += fmt::format("... and {} more\n", lines.size() - 8);
  return out;
}

std::vector<std::string> Temporaries(const Tree& tree) {
  std::vector<std::string> found;
  for (const auto& [path, entry] : tree)
    if (path.ends_with(".rocmtune-new")) found.push_back(path);
  return found;
}

}  // namespace rocmtune::crash
