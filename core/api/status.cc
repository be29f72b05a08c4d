#include "api/status.h"

#include <fmt/format.h>

#include "api/journal_access.h"
#include "api/live_json.h"
#include "api/status_json.h"
#include "journal/attention.h"
#include "journal/history.h"
#include "journal/writer_probe.h"
#include "knobs/file_findings.h"
#include "knobs/registry.h"
#include "knobs/setting_findings.h"

namespace rocmtune::api {

namespace {

Result<void> CheckReadable(const sys::Root& root) {
  for (std::string_view dir : {".", "sys", "proc"}) {
    auto listed = root.ListDir(dir);
    if (listed || listed.error().code == ErrorCode::kNotFound) continue;
    return Fail(listed.error().code,
                fmt::format("cannot read {}; nothing about this machine can be said", listed.error().message),
                listed.error().errno_value);
  }
  return {};
}

StatusReport StatusOf(const sys::Root& root, detect::Inventory inventory, const StatusOptions& options) {
  StatusReport report{std::move(inventory), {}, {}, {}};
  if (root.IsLive() && options.live_facts)
    report.live = options.known_live ? *options.known_live : detect::ReadLiveFacts(report.inventory.gpus);
  knobs::KnobContext ctx{root, report.inventory, knowledge::Catalog::Builtin()};
  report.knobs = knobs::ReportKnobs(ctx);
  std::vector<detect::Finding> found = knobs::SettingFindings(ctx);
  for (detect::Finding& f : knobs::UnreadableFileFindings(ctx)) found.push_back(std::move(f));
  // The journal says which profile is active; one that cannot be read is a finding, not a
  // reason to show nothing else.
  if (auto txns = journal::Load(root)) {
    report.active_profile = journal::ActiveProfile(*txns);
    // What `verify` reports from the journal is worth seeing in `status` too.
    std::vector<journal::Attention> attention = journal::Interrupted(*txns, journal::LastIsRunning(root, *txns));
    for (journal::Attention& a : journal::PendingRegenerations(root, *txns)) attention.push_back(std::move(a));
    for (journal::Attention& a : journal::LeftoverTemporaries(root, *txns)) attention.push_back(std::move(a));
    for (journal::Attention& a : attention)
      found.push_back({"journal." + a.kind, detect::Severity::kWarning, std::move(a.message), std::move(a.subject)});
  } else {
    // A user the journal's permissions keep out is told so (info); a damaged journal is an error.
    found.push_back(JournalUnreadableFinding(txns.error()));
  }
  for (detect::Finding& f : found) report.inventory.findings.push_back(std::move(f));
  return report;
}

}  // namespace

Result<StatusReport> Status(const sys::Root& root) {
  if (auto readable = CheckReadable(root); !readable) return tl::unexpected(readable.error());
  return StatusOf(root, detect::Detect(root), {});
}

Result<StatusReport> Status(const sys::Root& root, detect::Inventory inventory, const StatusOptions& options) {
  if (auto readable = CheckReadable(root); !readable) return tl::unexpected(readable.error());
  return StatusOf(root, std::move(inventory), options);
}

Result<nlohmann::ordered_json> DescribeSystem(const sys::Root& root, detect::Inventory inventory,
                                              const StatusOptions& options) {
  auto report = Status(root, std::move(inventory), options);
  if (!report) return tl::unexpected(report.error());
  return StatusJson(*report);
}

nlohmann::ordered_json StatusJson(const StatusReport& report) {
  nlohmann::ordered_json doc = StatusJson(report.inventory, report.knobs);
  doc["profile"] =
      report.active_profile.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(report.active_profile);
  if (report.live)
    for (size_t i = 0; i < report.live->size() && i < doc["gpus"].size(); ++i)
      doc["gpus"][i]["live"] = LiveJson((*report.live)[i]);
  return doc;
}

Result<nlohmann::ordered_json> DescribeSystem(const sys::Root& root) {
  auto report = Status(root);
  if (!report) return tl::unexpected(report.error());
  return StatusJson(*report);
}

}  // namespace rocmtune::api
