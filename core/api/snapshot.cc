#include "api/snapshot.h"

#include <fmt/format.h>

namespace rocmtune::api {

Result<SnapshotReport> Snapshot(const sys::Root& root, const std::string& out_dir) {
  auto stats = snapshot::WriteSnapshot(root, out_dir);
  if (!stats) {
    Error e = stats.error();
    e.message = fmt::format("snapshot: {}", e.message);
    return tl::unexpected(std::move(e));
  }
  return SnapshotReport{out_dir, *stats};
}

nlohmann::ordered_json SnapshotJson(const SnapshotReport& r) {
  return {{"schema", "rocmtune.snapshot.v1"},
          {"path", r.path},
          {"files", r.stats.files},
          {"symlinks", r.stats.symlinks},
          {"skipped", r.stats.skipped}};
}

}  // namespace rocmtune::api
