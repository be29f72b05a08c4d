// The helper's only way to change files: under the root, through openat2(2) with
// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS (a symlink anywhere on the path is refused, so a
// write can never land outside the root or on a file a link points to). Files are replaced
// atomically: a temporary beside the target, fsync, rename, fsync of the directory. A crash
// leaves the old or the new content, and at worst a temporary that recovery removes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "helper/step_hook.h"
#include "sys/root.h"
#include "sys/unique_fd.h"

namespace rocmtune::helper {

class FileWriter {
 public:
  FileWriter(const sys::Root& root, StepHook& hook) : root_(root), hook_(hook) {}

  // The file's content, nullopt when it does not exist. A symlink, a non-regular file or an
  // unreadable one is an error: the helper never takes "cannot read" for "absent".
  Result<std::optional<std::string>> Read(std::string_view path) const;
  // The attribute's bytes as the kernel (or a world's plain file) shows them. An attribute is
  // `sys/<device dir>/<name>`: the device directory may be reached through links (class/drm/cardN
  // is one) but never out of the root's sys/, and the attribute itself is a regular file with one
  // link, never a symlink: sysfs attributes are, and anything else is a file someone arranged.
  Result<std::string> ReadAttribute(std::string_view path) const;

  // Directories missing on the way to `path`'s parent, outermost first.
  Result<std::vector<std::string>> MissingParents(std::string_view path) const;
  Result<void> Mkdir(std::string_view dir);
  // Removes an empty directory; false when it is not empty (someone else's files are there).
  Result<bool> RmdirIfEmpty(std::string_view dir);

  Result<void> Replace(std::string_view path, std::string_view content);
  Result<void> Remove(std::string_view path);
  // An attribute the device refuses for now (EPERM, EBUSY, EAGAIN: a GPU reset or suspend) is
  // tried again, up to 5 times in under a second; then the error says the device stayed busy.
  Result<void> WriteAttribute(std::string_view path, std::string_view value);
  // The temporary a crash may have left beside `path`.
  Result<void> RemoveTemporary(std::string_view path);

  static std::string TemporaryName(std::string_view path);

 private:
  Result<sys::UniqueFd> OpenDir(std::string_view dir) const;
  Result<sys::UniqueFd> OpenAttribute(std::string_view path, int flags) const;
  // One try: the step hook, the open, the write.
  Result<void> WriteAttributeOnce(std::string_view path, std::string_view value);
  Result<void> SyncDir(const sys::UniqueFd& dir, std::string_view path);

  const sys::Root& root_;
  StepHook& hook_;
};

// "etc/modprobe.d/x.conf" -> "etc/modprobe.d"; "x" -> "".
std::string_view ParentOf(std::string_view path);
std::string_view BaseName(std::string_view path);

}  // namespace rocmtune::helper
