// Sink: where a snapshot's entries go. OutDir writes a directory; ArchiveOut collects them and
// writes one tar.gz at Finish(). The snapshot reads the source the same way for both.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string_view>

#include "util/result.h"

namespace rocmtune::snapshot {

// The widest mode an entry gets: the source's permission bits without set-id, sticky or write
// for group and others. A 0600 journal stays 0600, a 0644 file 0644.
inline constexpr mode_t kMaxMode = 0755;

// The mode of what holds a snapshot (the archive file, the output directory): the owner's bits,
// and for group and others only what every member file grants them, since one is as private as
// its most private member (a 0600 /etc/environment makes the archive 0600 and the directory
// 0700); then the process's umask, as any file a user makes. `members` is the AND of the member
// files' modes (0777 when there are none).
mode_t ContainerMode(mode_t members, bool directory);

class Sink {
 public:
  virtual ~Sink() = default;
  // A new file at root-relative `rel`, its parents made as needed; `mtime` is the source's
  // (seconds since the epoch), `mode` its permission bits (at most kMaxMode is kept). False
  // when this sink already holds `rel` (nothing written).
  virtual Result<bool> WriteFile(std::string_view rel, std::string_view content, int64_t mtime, mode_t mode) = 0;
  // A symlink at `rel`; false when one is already there.
  virtual Result<bool> Symlink(std::string_view rel, std::string_view target, int64_t mtime) = 0;
  // The directory `rel` with the source's `mode`, kept even when nothing is written in it (an
  // empty sys/class/iommu says "no IOMMU unit"). Call it before anything beneath `rel`;
  // directories never named here get 0755.
  virtual Result<void> Directory(std::string_view rel, mode_t mode) = 0;
  virtual Result<void> Finish() = 0;
};

}  // namespace rocmtune::snapshot
