#include "api/snapshot.h"

#include <fmt/format.h>

#include "knobs/env_redact.h"

namespace rocmtune::api {

Result<SnapshotReport> Snapshot(const sys::Root& root, const std::string& out_dir) {
  // The environment files, redacted: `status` on the snapshot shows the same env findings.
  std::vector<snapshot::ExtraFile> extra;
  for (knobs::RedactedFile& f : knobs::RedactedEnvFiles(root)) extra.push_back({f.path, std::move(f.content)});
  auto stats = snapshot::WriteSnapshot(root, out_dir, extra);
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
