// Sink: where a snapshot's entries go. OutDir writes a directory; ArchiveOut collects them and
// writes one tar.gz at Finish(). The snapshot reads the source the same way for both.
#pragma once

#include <cstdint>
#include <string_view>

#include "util/result.h"

namespace rocmtune::snapshot {

class Sink {
 public:
  virtual ~Sink() = default;
  // A new file at root-relative `rel`, its parents made as needed; `mtime` is the source's
  // (seconds since the epoch). False when this sink already holds `rel` (nothing written).
  virtual Result<bool> WriteFile(std::string_view rel, std::string_view content, int64_t mtime) = 0;
  // A symlink at `rel`; false when one is already there.
  virtual Result<bool> Symlink(std::string_view rel, std::string_view target, int64_t mtime) = 0;
  virtual Result<void> Finish() = 0;
};

}  // namespace rocmtune::snapshot
