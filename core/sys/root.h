// Root: the filesystem root every layer reads through ("/" in production, a world
// directory in tests and image builds). Every path is resolved with openat2(2)
// RESOLVE_IN_ROOT, so no symlink or ".." can lead outside the root.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sys/root_id.h"
#include "sys/unique_fd.h"
#include "util/result.h"

namespace rocmtune::sys {

enum class EntryType { kMissing, kFile, kDirectory, kSymlink, kOther };

// What root sees in directories this process may not read, as rocmtune-helper read them for it:
// the daemon's user cannot list an ESP that Debian mounts root-only (umask=0077), but a trial must
// copy its default entry (boot/boot_files.h). Paths are root-relative, without a leading '/'.
struct RootSupplement {
  std::map<std::string, std::string, std::less<>> files;              // path -> content
  std::map<std::string, std::vector<std::string>, std::less<>> dirs;  // path -> sorted names
};

class Root {
 public:
  // sysfs attributes are at most a page; binary blobs (pp_table) a few KiB. 1 MiB bounds
  // what a hostile tree can make us allocate.
  static constexpr size_t kDefaultMaxBytes = 1 << 20;

  // Opens the directory once; every later access resolves beneath this descriptor.
  static Result<Root> Open(std::string path);
  // A directory descriptor handed down by the process that made the plan (rocmtune-helper
  // --root-fd): the very directory it planned for. `path` is only for messages.
  static Result<Root> Adopt(UniqueFd fd, std::string path);
  // Another handle on the same directory (not a new lookup of the path).
  Result<Root> Duplicate() const;

  const std::string& path() const { return path_; }
  // The root directory (O_PATH): the helper's writer resolves its own paths beneath it.
  int fd() const { return fd_.get(); }
  RootId id() const { return id_; }
  // The running system: the same directory as this process's "/" (by device and inode, so
  // "//", "/." or a bind mount of / are live, and a path that merely reads "/" is not needed).
  bool IsLive() const { return live_; }

  // "sys/class/drm" -> "/sys/class/drm" on the live system, "<world>/sys/class/drm" otherwise.
  std::string Display(std::string_view rel) const;

  // Reads a regular file (FIFOs, devices and sockets are refused, never opened blocking; as root,
  // never opened at all: OpenRegular).
  Result<std::string> ReadFile(std::string_view rel, size_t max_bytes = kDefaultMaxBytes) const;
  // A regular file opened for reading (kInvalidData: something else). As root the entry's type
  // is looked at through an O_PATH descriptor before anything is opened for reading.
  Result<UniqueFd> OpenRegular(std::string_view rel) const;

  // Names in a directory, sorted, without "." and "..".
  Result<std::vector<std::string>> ListDir(std::string_view rel) const;

  // Type of the entry itself (a symlink is reported as kSymlink, not followed).
  EntryType TypeOf(std::string_view rel) const;
  // Type after following symlinks (inside the root).
  EntryType ResolvedTypeOf(std::string_view rel) const;
  bool IsDirectory(std::string_view rel) const { return ResolvedTypeOf(rel) == EntryType::kDirectory; }
  bool Exists(std::string_view rel) const { return ResolvedTypeOf(rel) != EntryType::kMissing; }

  // Target of a symlink, as stored.
  Result<std::string> ReadLink(std::string_view rel) const;

  // openat2 under the root; `flags` as for open(2).
  Result<UniqueFd> Open(std::string_view rel, int flags) const;

  // From now on ReadFile, ListDir, TypeOf and ResolvedTypeOf answer from `supplement` for its
  // files and directories, and a directory it lists has no other entries. Open and ReadLink do
  // not look at it: nothing writes or follows links there by what a supplement says.
  void Supplement(std::shared_ptr<const RootSupplement> supplement) { supplement_ = std::move(supplement); }
  const RootSupplement* supplement() const { return supplement_.get(); }

 private:
  Root(std::string path, UniqueFd fd, RootId id, bool live)
      : path_(std::move(path)), fd_(std::move(fd)), id_(id), live_(live) {}
  static Result<Root> FromFd(UniqueFd fd, std::string path);
  // The supplement's answer for `rel`: a file, a directory, kMissing inside one of its
  // directories, or nullopt (not the supplement's: ask the tree).
  std::optional<EntryType> Supplemented(std::string_view rel) const;

  std::string path_;
  UniqueFd fd_;
  RootId id_;
  bool live_ = false;
  std::shared_ptr<const RootSupplement> supplement_;
};

// Joins root-relative path pieces with '/'.
std::string JoinPath(std::string_view a, std::string_view b);

}  // namespace rocmtune::sys
