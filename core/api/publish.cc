#include "api/publish.h"

namespace rocmtune::api {

std::vector<plan::PublishFile> PublishFiles(const ExportReport& report, const plan::ExportConfig& config,
                                            std::chrono::system_clock::time_point now) {
  std::vector<plan::PublishFile> files;
  for (const plan::PublishTarget& target : config.targets)
    if (target.enabled) files.push_back({target.format, RenderExport(target.format, report, config, now)});
  return files;
}

Result<plan::HelperReply> PublishExports(const ExportReport& report, const plan::ExportConfig& config, Writer& writer) {
  return writer.Publish(PublishFiles(report, config, std::chrono::system_clock::now()));
}

}  // namespace rocmtune::api
