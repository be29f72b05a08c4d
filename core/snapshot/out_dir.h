// OutDir: the directory a snapshot writes, and the only place it writes. `rocmtunectl snapshot`
// runs as root while OUT may sit in (or be) a directory another user can change, so nothing is
// written by path: every entry is made beneath the directory's descriptor one component at a
// time, never following a symlink, and files are created with O_EXCL.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snapshot/sink.h"
#include "sys/unique_fd.h"
#include "util/result.h"

namespace rocmtune::snapshot {

class OutDir final : public Sink {
 public:
  // Creates `path` (mode 0700 until Finish()), or takes an existing empty directory that is not
  // a symlink. kInvalidArgument when it exists and is not an empty directory.
  static Result<OutDir> Open(const std::string& path);

  // Writes a new file at `rel`, making its parent directories. Returns false (and writes
  // nothing) when this OutDir already wrote `rel`; any other existing entry is an error.
  // The files keep the time they are written at (`mtime` is for archives); `mode` is created
  // through the umask, so it only narrows.
  Result<bool> WriteFile(std::string_view rel, std::string_view content, int64_t mtime, mode_t mode) override;
  // Makes a symlink at `rel`; false when one is already there.
  Result<bool> Symlink(std::string_view rel, std::string_view target, int64_t mtime) override;
  // Makes `rel` now (0755 through the umask, so that the snapshot can write in it whatever the
  // source's mode) and narrows it to `mode` at Finish().
  Result<void> Directory(std::string_view rel, mode_t mode) override;
  // Gives the directories their modes, deepest first, and opens the output to its readers when
  // this OutDir created it: as far as its most private file allows (ContainerMode, sink.h).
  Result<void> Finish() override;

 private:
  OutDir(std::string path, sys::UniqueFd fd, bool created)
      : path_(std::move(path)), fd_(std::move(fd)), created_(created) {}
  // The directory `rel_dir` beneath the output, made as needed; "" is the output itself.
  Result<int> Dir(std::string_view rel_dir);

  std::string path_;
  sys::UniqueFd fd_;
  bool created_;
  mode_t members_ = 0777;                                    // the AND of the files' modes
  std::vector<std::pair<std::string, sys::UniqueFd>> open_;  // components of the last Dir(), open
  std::set<std::string, std::less<>> written_;
  std::map<std::string, mode_t, std::less<>> dir_modes_;  // Directory(): applied at Finish()
};

}  // namespace rocmtune::snapshot
