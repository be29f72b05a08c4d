// `snapshot DIR` / `snapshot --output FILE.tar.gz`: a world of this machine for bug reports, and
// its summary document.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "snapshot/snapshot.h"
#include "sys/root.h"

namespace rocmtune::api {

struct SnapshotReport {
  std::string path;  // the directory, or the archive
  snapshot::SnapshotStats stats;
  std::string archive;  // --output: the archive written ("" for a directory)
  std::string top;      // --output: the directory in the archive that is the world
};

// Beside the world, at its top, the documents a bug report needs as the source's
// `rocmtunectl --json` printed them (redacted like every file): kStatusDocument now.
inline constexpr std::string_view kStatusDocument = "rocmtune-status.json";

// kInvalidArgument: DIR exists and is not an empty directory (or is a symlink).
Result<SnapshotReport> Snapshot(const sys::Root& root, const std::string& out_dir);
// kInvalidArgument: FILE exists (it is never replaced).
Result<SnapshotReport> SnapshotArchive(const sys::Root& root, const std::string& file);

nlohmann::ordered_json SnapshotJson(const SnapshotReport& report);

}  // namespace rocmtune::api
