// `snapshot DIR`: a world of this machine for bug reports, and its summary document.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "snapshot/snapshot.h"
#include "sys/root.h"

namespace rocmtune::api {

struct SnapshotReport {
  std::string path;
  snapshot::SnapshotStats stats;
};

// kInvalidArgument: DIR exists and is not an empty directory (or is a symlink).
Result<SnapshotReport> Snapshot(const sys::Root& root, const std::string& out_dir);

nlohmann::ordered_json SnapshotJson(const SnapshotReport& report);

}  // namespace rocmtune::api
