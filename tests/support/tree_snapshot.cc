#include "tree_snapshot.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace rocmtune::testing {
namespace {

bool Ignored(const std::string& path, const std::vector<std::string_view>& ignore) {
  for (std::string_view prefix : ignore)
    if (path == prefix || (path.starts_with(prefix) && path.size() > prefix.size() && path[prefix.size()] == '/'))
      return true;
  return false;
}

}  // namespace

TreeSnapshot SnapshotTree(const std::string& root) {
  TreeSnapshot out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path& p = it->path();
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) throw std::runtime_error("lstat failed: " + p.string());
    TreeEntry e;
    e.mode = st.st_mode & 07777;
    e.mtime = st.st_mtim;
    if (S_ISLNK(st.st_mode)) {
      e.type = 'l';
      e.content = fs::read_symlink(p).string();
    } else if (S_ISDIR(st.st_mode)) {
      e.type = 'd';
    } else if (S_ISREG(st.st_mode)) {
      e.type = 'f';
      std::ifstream in(p, std::ios::binary);
      std::ostringstream bytes;
      bytes << in.rdbuf();
      e.content = bytes.str();
    } else {
      e.type = 'o';
    }
    out[fs::relative(p, root).string()] = std::move(e);
  }
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

}  // namespace rocmtune::testing
