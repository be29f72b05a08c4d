// TestTree: a scratch directory for building small hostile worlds in unit tests.
#pragma once

#include <string>
#include <string_view>

namespace rocmtune::testing {

class TestTree {
 public:
  TestTree();
  ~TestTree();
  TestTree(const TestTree&) = delete;
  TestTree& operator=(const TestTree&) = delete;

  const std::string& path() const { return path_; }
  std::string Path(std::string_view rel) const;

  // Creates parent directories as needed. Content is written byte for byte (NULs included).
  void Write(std::string_view rel, std::string_view content) const;
  void Mkdir(std::string_view rel) const;
  void Symlink(std::string_view rel, std::string_view target) const;
  void Chmod(std::string_view rel, unsigned mode) const;

 private:
  std::string path_;
};

// Runs `check` as uid/gid 65534 ("nobody") in a forked child when the test runs as root
// (root ignores permission bits), directly otherwise, and returns its result. Returns
// kNoPrivilegeDrop when privileges could not be dropped, kChildCrashed when the child died.
inline constexpr int kNoPrivilegeDrop = 10;
inline constexpr int kChildCrashed = 126;
int RunAsNobody(int (*check)(const void*), const void* arg);

// `binary` copied into `dir` (mode 0755) and the copy's path returned. A test that drops to
// uid 65534 runs such a copy: the build tree may sit under a private directory (a clone in
// /root, mode 0700) the unprivileged user cannot reach, so exec'ing it there would fail.
// `dir` and every directory above it must be searchable by all.
std::string ReachableCopy(const std::string& binary, const std::string& dir);

// Copies a directory tree (symlinks as symlinks).
void CopyTree(const std::string& from, const std::string& to);

}  // namespace rocmtune::testing
