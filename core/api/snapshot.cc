#include "api/snapshot.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/doctor.h"
#include "api/error_json.h"
#include "api/faults.h"
#include "api/status.h"
#include "journal/journal.h"
#include "knobs/env_redact.h"
#include "knobs/env_sources.h"
#include "plan/plan_json.h"
#include "snapshot/redact.h"
#include "util/json_limits.h"
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
    // The GPU faults the log recorded, as this user may read them (rocmtune.faults.v1): the
    // process, user and lines of a fault go through the Redactor like every file.
    {"faults.json",
     [](const sys::Root& root) -> Result<nlohmann::ordered_json> {
       auto report = Faults(root, FaultsOptions{});
       if (!report) return tl::unexpected(report.error());
       return FaultsJson(*report);
     }},
};

// A file's content as the snapshot would carry the file itself: an environment source as
// knobs::RedactEnvSource makes it (an op of the env backend, or a path the env readers read),
// then what the Redactor takes out of any file at that path.
std::string RedactedContent(const sys::Root& root, const snapshot::Redactor& redactor, const plan::Op& op,
                            std::string_view content) {
  std::optional<bool> shell;
  for (const std::vector<knobs::EnvSource>& sources : {knobs::ForeignEnvSources(root), knobs::OwnedEnvSources()})
    for (const knobs::EnvSource& source : sources)
      if (source.path == op.path) shell = source.shell;
  if (!shell && op.backend == plan::BackendId::kEnv) shell = op.path.ends_with(".sh");
  return redactor.Redact(op.path, shell ? knobs::RedactEnvSource(content, *shell) : std::string(content));
}

// One journal line with each op's before/after (a begin record's, a contents record's) redacted.
// A line that is not a record rocmtune reads keeps nothing of what it held.
std::string RedactedJournalLine(const sys::Root& root, const snapshot::Redactor& redactor, std::string_view line) {
  auto record = ParseBoundedJson(line, "journal");
  if (!record || !record->is_object()) return std::string(snapshot::kRedacted);
  auto ops = record->find("ops");
  if (ops == record->end() || !ops->is_array()) return JsonText(*record, -1);
  for (size_t i = 0; i < ops->size(); ++i) {
    auto op = plan::OpFromJson((*ops)[i], i);
    if (!op) {
      (*ops)[i] = std::string(snapshot::kRedacted);
      continue;
    }
    if (op->kind != plan::OpKind::kWriteFile && op->kind != plan::OpKind::kRemoveFile) continue;
    if (op->before) op->before = RedactedContent(root, redactor, *op, *op->before);
    if (op->after) op->after = RedactedContent(root, redactor, *op, *op->after);
    (*ops)[i] = plan::OpToJson(*op);
  }
  return JsonText(*record, -1);
}

// The journal's files (records and private contents, journal/journal.h) with the contents of the
// files they hold redacted as the snapshot redacts those files: a 0600 /etc/environment's token
// must not reach a bug report through the transaction that edited it. The metadata (ids, ops,
// paths, states) stays: `status`, `history` and `verify` on the snapshot read it. A file this user
// may not read is left to the copy, which says it was left out.
std::vector<snapshot::ExtraFile> RedactedJournalFiles(const sys::Root& root) {
  std::vector<snapshot::ExtraFile> out;
  auto names = root.ListDir(journal::kJournalDir);
  if (!names) return out;
  const snapshot::Redactor redactor(root);
  for (const std::string& name : *names) {
    std::string rel = sys::JoinPath(std::string(journal::kJournalDir), name);
    if (root.TypeOf(rel) != sys::EntryType::kFile) continue;
    auto content = root.ReadFile(rel, journal::kMaxJournalFileBytes);
    if (!content) continue;
    std::string text;
    for (size_t pos = 0; pos < content->size();) {
      size_t end = std::min(content->find('\n', pos), content->size());
      text += RedactedJournalLine(root, redactor, std::string_view(*content).substr(pos, end - pos));
      if (end < content->size()) text += '\n';
      pos = end + 1;
    }
    out.push_back({rel, std::move(text)});
  }
  return out;
}

std::vector<snapshot::ExtraFile> ExtraFiles(const sys::Root& root) {
  std::vector<snapshot::ExtraFile> extra = RedactedJournalFiles(root);
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
