#include "api/publish.h"

namespace rocmtune::api {

std::vector<plan::PublishFile> PublishFiles(const ExportReport& report, const plan::ExportConfig& config,
                                            std::chrono::system_clock::time_point now) {
  std::vector<plan::PublishFile> files;
  if (config.prometheus.enabled) files.push_back({plan::PublishFormat::kPrometheus, PrometheusText(report)});
  if (config.nfd.enabled) {
    NfdOptions options;
    options.label_namespace = config.nfd_namespace;
    options.expiry = config.nfd_expiry;
    files.push_back({plan::PublishFormat::kNfd, NfdText(report, options, now)});
  }
  return files;
}

Result<plan::HelperReply> PublishExports(const ExportReport& report, const plan::ExportConfig& config, Writer& writer) {
  return writer.Publish(PublishFiles(report, config, std::chrono::system_clock::now()));
}

}  // namespace rocmtune::api
