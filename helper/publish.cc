#include "helper/publish.h"

#include <fmt/format.h>

#include "helper/file_writer.h"
#include "helper/lock.h"
#include "plan/publish.h"

namespace rocmtune::helper {

namespace {

Outcome Ended(Status status, std::string message) { return {status, "", {std::move(message)}, {}, {}, {}}; }

// Only a file rocmtune wrote is removed: one that begins as its format's row says (the Prometheus
// export with rocmtune_info's HELP line, the NFD one with rocmtune's comment).
bool OursToRemove(const FileWriter& writer, const plan::PublishTarget& target) {
  auto content = writer.Read(target.Path());
  if (!content || !*content) return false;
  return (*content)->starts_with(plan::Row(target.format).ours);
}

}  // namespace

Outcome Publish(const sys::Root& root, StepHook& hook, std::string_view request, bool wait) {
  auto files = plan::ParsePublishRequest(request);
  if (!files) return Ended(Status::kRefused, files.error().message);
  auto config = plan::ReadExportConfig(root);
  if (!config) return Ended(Status::kRefused, config.error().message);
  for (const plan::PublishFile& f : *files) {
    const plan::PublishTarget& target = config->Target(f.format);
    if (!target.enabled)
      return Ended(Status::kRefused, fmt::format("the {} export is not enabled in /{}",
                                                 plan::ExportFormatName(f.format), plan::kExportConfigPath));
    if (auto ok = plan::CheckPublishContent(*config, f); !ok) return Ended(Status::kRefused, ok.error().message);
  }
  auto lock = WriterLock::Acquire(root, hook, wait);
  if (!lock) return Ended(wait ? Status::kFailed : Status::kBusy, lock.error().message);
  FileWriter writer(root, hook);
  Outcome out{Status::kUnchanged, "", {}, {}, {}, {}};  // nothing enabled, nothing to remove
  for (const plan::PublishFile& f : *files) {
    const plan::PublishTarget& target = config->Target(f.format);
    std::string dir(std::string_view(target.directory).substr(1));
    if (root.TypeOf(dir) != sys::EntryType::kDirectory)
      return Ended(Status::kFailed, fmt::format("{} is not a directory: is {} installed? (/{})", root.Display(dir),
                                                plan::Row(f.format).engine, plan::kExportConfigPath));
    // Written even when unchanged: its mtime is how node_exporter (node_textfile_mtime_seconds)
    // and an operator's alert see that the export is alive.
    if (auto ok = writer.Replace(target.Path(), f.content); !ok) return Ended(Status::kFailed, ok.error().message);
    out.status = Status::kCommitted;
    out.messages.push_back(fmt::format("wrote {}", root.Display(target.Path())));
  }
  for (const plan::PublishTarget& target : config->targets) {
    if (target.enabled || !OursToRemove(writer, target)) continue;
    if (auto ok = writer.Remove(target.Path()); !ok) return Ended(Status::kFailed, ok.error().message);
    out.status = Status::kCommitted;
    out.messages.push_back(fmt::format("removed {} (the {} export is not enabled)", root.Display(target.Path()),
                                       plan::ExportFormatName(target.format)));
  }
  return out;
}

}  // namespace rocmtune::helper
