#include "journal/write_access.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>

#include <fmt/format.h>

#include "journal/journal.h"

namespace rocmtune::journal {
namespace {

// The nearest of kStateDir and its parents that exists in `root` ("" for the root itself).
std::string NearestExisting(const sys::Root& root) {
  std::string dir(kStateDir);
  while (!dir.empty() && !root.IsDirectory(dir)) {
    size_t slash = dir.rfind('/');
    dir = slash == std::string::npos ? "" : dir.substr(0, slash);
  }
  return dir;
}

}  // namespace

Result<void> CheckWriteAccess(const sys::Root& root) {
  if (::geteuid() == 0) return {};
  if (root.IsLive()) return Fail(ErrorCode::kNotAuthorized, "changing the running system needs root: run it with sudo");
  std::string dir = NearestExisting(root);
  // Opened beneath the root, then asked through /proc/self/fd: access(2) by path would follow a
  // symlink in the tree out of it. AT_EACCESS: the effective ids, the ones the helper writes with
  // (it runs as this user); ACLs and group membership count as the kernel counts them.
  auto fd = root.Open(dir, O_PATH | O_DIRECTORY);
  std::string display = root.Display(dir);
  bool writable =
      fd && ::faccessat(AT_FDCWD, fmt::format("/proc/self/fd/{}", fd->get()).c_str(), W_OK | X_OK, AT_EACCESS) == 0;
  if (writable) return {};
  return Fail(ErrorCode::kNotAuthorized,
              fmt::format("changing {} needs write access to {}: run it as the tree's owner or with sudo", root.path(),
                          display));
}

}  // namespace rocmtune::journal
