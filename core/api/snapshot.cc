#include "api/snapshot.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/doctor.h"
#include "api/error_json.h"
#include "api/status.h"
#include "knobs/env_redact.h"
#include "util/json_text.h"

namespace rocmtune::api {
namespace {

// A document that could not be made is its rocmtune.error.v1 document: the report says why.
std::string DocumentText(const Result<nlohmann::ordered_json>& doc) {
  return JsonText(doc ? *doc : ErrorJson(doc.error())) + "\n";
}

struct ReportDocument {
  std::string_view name;
  Result<nlohmann::ordered_json> (*make)(const sys::Root& root);
};

constexpr ReportDocument kReportDocuments[] = {
    {kStatusDocument, [](const sys::Root& root) { return DescribeSystem(root); }},
    {"doctor.json",
     [](const sys::Root& root) -> Result<nlohmann::ordered_json> {
       auto report = Doctor(root);
       if (!report) return tl::unexpected(report.error());
       return DoctorJson(*report);
     }},
};

std::vector<snapshot::ExtraFile> ExtraFiles(const sys::Root& root) {
  std::vector<snapshot::ExtraFile> extra;
  // The environment files, redacted: `status` on the snapshot shows the same env findings.
  for (knobs::RedactedFile& f : knobs::RedactedEnvFiles(root)) extra.push_back({f.path, std::move(f.content)});
  for (const ReportDocument& doc : kReportDocuments)
    extra.push_back({std::string(doc.name), DocumentText(doc.make(root))});
  return extra;
}

Error Prefixed(Error e) {
  e.message = fmt::format("snapshot: {}", e.message);
  return e;
}

}  // namespace

Result<SnapshotReport> Snapshot(const sys::Root& root, const std::string& out_dir) {
  auto stats = snapshot::WriteSnapshot(root, out_dir, ExtraFiles(root));
  if (!stats) return tl::unexpected(Prefixed(stats.error()));
  return SnapshotReport{out_dir, *stats, "", ""};
}

Result<SnapshotReport> SnapshotArchive(const sys::Root& root, const std::string& file) {
  auto written = snapshot::WriteSnapshotArchive(root, file, ExtraFiles(root));
  if (!written) return tl::unexpected(Prefixed(written.error()));
  return SnapshotReport{file, written->stats, file, written->top};
}

nlohmann::ordered_json SnapshotJson(const SnapshotReport& r) {
  nlohmann::ordered_json doc = {{"schema", "rocmtune.snapshot.v1"}, {"path", r.path}};
  if (!r.archive.empty()) {
    doc["archive"] = r.archive;
    doc["top"] = r.top;
  }
  doc["files"] = r.stats.files;
  doc["symlinks"] = r.stats.symlinks;
  doc["skipped"] = r.stats.skipped;
  // What could not be read (a user's snapshot lacks the journal); the first kMaxLeftOut paths.
  doc["left_out"] = r.stats.left_out;
  return doc;
}

}  // namespace rocmtune::api
