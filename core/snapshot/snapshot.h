// Snapshot: writes a world (a directory that stands for "/") from a Root, holding what
// detection reads and nothing private or side-effecting. Users attach it to bug reports;
// `rocmtunectl --root <snapshot> status` then shows what rocmtune saw on their machine.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::snapshot {

struct SnapshotStats {
  size_t files = 0;
  size_t symlinks = 0;
  size_t skipped = 0;  // unreadable or over the size limit
  // What could not be read (root-relative paths: files, and directories that could not be
  // listed), so a snapshot made by a user says what it lacks: the journal (0640 root:rocmtune),
  // root-only sysfs attributes. At most kMaxLeftOut are named; `skipped` counts them all.
  std::vector<std::string> left_out = {};
};
inline constexpr size_t kMaxLeftOut = 100;

// `out_dir` must not exist (it is created) or be an empty directory; nothing is written outside
// it, whoever can change it or its parent meanwhile (snapshot/out_dir.h). Device serial numbers are
// not copied and KFD unique_id values are replaced by hashes that keep equal values equal
// (partition grouping still works); MAC addresses, the host name and user names in home paths
// are redacted from every file (snapshot/redact.h). rocmtune's configuration and journal are copied.
// `extra` are written as given (root-relative path, content): what a layer above prepares, such
// as the environment files with other variables' values redacted (api::Snapshot, knobs/env_redact.h),
// and the journal with the files' contents redacted as those files are: an extra file takes the
// place of the root's file at its path, which is then never copied.
struct ExtraFile {
  std::string path;
  std::string content;
};
Result<SnapshotStats> WriteSnapshot(const sys::Root& root, const std::string& out_dir,
                                    std::span<const ExtraFile> extra = {});

// The same world as one tar.gz at `file` (snapshot/archive_out.h): a new file, written whole or
// not at all; its members lie under `top`.
struct ArchiveStats {
  SnapshotStats stats;
  std::string top;
};
Result<ArchiveStats> WriteSnapshotArchive(const sys::Root& root, const std::string& file,
                                          std::span<const ExtraFile> extra = {});

}  // namespace rocmtune::snapshot
