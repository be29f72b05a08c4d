// Trees on disk for the crash tests: exact snapshots (to say "byte-identical to before or
// after") and fast copies (every injection point runs on a fresh copy of the scenario's tree).
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace rocmtune::crash {

// A scratch directory, removed with everything in it. On tmpfs (/dev/shm) when there is one:
// a SIGKILL leaves the page cache as it was, so what these tests check does not depend on the
// disk, and tmpfs makes the thousands of copies fast and the helper's fsyncs free.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Path(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A world copied to `to` (which must not exist), with the empty directories git cannot hold.
void CopyWorld(const std::string& world_dir, const std::string& to);
std::string WorldDir(const std::string& name);

// `from` copied to `to` (replacing whatever is there): directories, files and symlinks with
// their permission bits. It runs a thousand times a test, so regular files are hard links:
// the helper replaces files by rename(2), which leaves the other link alone. Only what it
// writes in place must be copied: `in_place` (root-relative files, or directories for all
// below them), e.g. the sysfs attributes of the plan and var/lib/rocmtune. A run that wrote
// any other file in place would change `from` itself; callers check it did not.
void FreshCopy(const std::string& from, const std::string& to, const std::vector<std::string>& in_place);
void RemoveTree(const std::string& path);

// Everything about an entry that a crash could leave half-done: type and permission bits,
// file bytes or symlink target. Times are left out (a rewrite with the same bytes is fine).
struct Entry {
  mode_t mode = 0;
  std::string data;
  bool operator==(const Entry&) const = default;
};
using Tree = std::map<std::string, Entry>;

// Every path under `root` except rocmtune's journal and lock (they are meant to change) and
// the directories that exist only to hold them.
Tree Snapshot(const std::string& root);
// The first differences, one per line, for assertion messages ("" when equal).
std::string Difference(const Tree& expected, const Tree& actual);
// Temporaries (`.NAME.rocmtune-new`) anywhere in a snapshot; a snapshot keeps them all.
std::vector<std::string> Temporaries(const Tree& tree);

}  // namespace rocmtune::crash
