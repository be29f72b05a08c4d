#include "test_tree.h"

#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace rocmtune::testing {

TestTree::TestTree() {
  std::string tmpl = (fs::temp_directory_path() / "rocmtune-test-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TestTree::~TestTree() {
  std::error_code ec;
  // Restore permissions a test may have taken away so the tree can be removed.
  for (auto it = fs::recursive_directory_iterator(path_, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_symlink(ec)) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
  }
  fs::remove_all(path_, ec);
}

std::string TestTree::Path(std::string_view rel) const { return (fs::path(path_) / rel).string(); }

void TestTree::Write(std::string_view rel, std::string_view content) const {
  fs::path p = fs::path(path_) / rel;
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) throw std::runtime_error("write failed: " + p.string());
}

void TestTree::Mkdir(std::string_view rel) const { fs::create_directories(fs::path(path_) / rel); }

void TestTree::Symlink(std::string_view rel, std::string_view target) const {
  fs::path p = fs::path(path_) / rel;
  fs::create_directories(p.parent_path());
  fs::create_symlink(target, p);
}

void TestTree::Chmod(std::string_view rel, unsigned mode) const {
  if (::chmod(Path(rel).c_str(), mode) != 0) throw std::runtime_error("chmod failed");
}

int RunAsNobody(int (*check)(const void*), const void* arg) {
  if (::geteuid() != 0) return check(arg);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (::setgroups(0, nullptr) != 0 || ::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0)
      ::_exit(kNoPrivilegeDrop);
    ::_exit(check(arg));
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return kChildCrashed;
  return WEXITSTATUS(status);
}

std::string ReachableCopy(const std::string& binary, const std::string& dir) {
  fs::path to = fs::path(dir) / fs::path(binary).filename();
  fs::create_directories(dir);
  fs::copy_file(binary, to, fs::copy_options::overwrite_existing);
  fs::permissions(to, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                          fs::perms::others_exec);
  return to.string();
}

void CopyTree(const std::string& from, const std::string& to) {
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
}

}  // namespace rocmtune::testing
