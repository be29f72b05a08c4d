// TreeSnapshot: every entry under a directory (symlinks not followed) with its type, bytes,
// mode and mtime, to assert what a command wrote - and that it wrote nothing else. The one
// tree snapshot of the tests: the crash tests' byte-exact trees are made from it too.
#pragma once

#include <ctime>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace rocmtune::testing {

struct TreeEntry {
  char type = '?';       // 'f' file, 'd' directory, 'l' symlink, 'o' other
  std::string content;   // a file's bytes, a symlink's target
  unsigned mode = 0;     // permission bits
  unsigned st_mode = 0;  // type and permission bits, as lstat(2) gives them
  timespec mtime{};
};

using TreeSnapshot = std::map<std::string, TreeEntry>;  // root-relative path -> entry

TreeSnapshot SnapshotTree(const std::string& root);

// Paths whose type, content or mode differ (or exist on one side only), and with
// `compare_mtime` also those whose st_mtim differs. Paths under `ignore` prefixes are skipped.
std::vector<std::string> ChangedPaths(const TreeSnapshot& before, const TreeSnapshot& after, bool compare_mtime,
                                      const std::vector<std::string_view>& ignore = {});

// Every byte of an open file (throws naming `path` on a read error).
std::string ReadFdAll(int fd, std::string_view path);

}  // namespace rocmtune::testing
