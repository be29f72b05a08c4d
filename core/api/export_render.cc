// Each export format's renderer (plan/export_format.h names the formats): the one place a
// format's text is made, for `rocmtunectl export` and for publishing alike.
#include <algorithm>
#include <iterator>

#include <nlohmann/json.hpp>

#include "api/export.h"
#include "util/json_text.h"

namespace rocmtune::api {

namespace {

using Render = std::string (*)(const ExportReport&, const plan::ExportConfig&, std::chrono::system_clock::time_point);

std::string RenderPrometheus(const ExportReport& report, const plan::ExportConfig&,
                             std::chrono::system_clock::time_point) {
  return PrometheusText(report);
}

std::string RenderNfd(const ExportReport& report, const plan::ExportConfig& config,
                      std::chrono::system_clock::time_point now) {
  NfdOptions options;
  options.label_namespace = config.nfd_namespace;
  options.expiry = config.nfd_expiry;
  return NfdText(report, options, now);
}

std::string RenderJson(const ExportReport& report, const plan::ExportConfig&, std::chrono::system_clock::time_point) {
  return JsonText(ExportJson(report)) + "\n";
}

struct ExportRenderer {
  plan::ExportFormat format;
  Render render;
};

constexpr ExportRenderer kExportRenderers[] = {
    {plan::ExportFormat::kPrometheus, RenderPrometheus},
    {plan::ExportFormat::kNfd, RenderNfd},
    {plan::ExportFormat::kJson, RenderJson},
};

const ExportRenderer* RendererOf(plan::ExportFormat format) {
  auto it = std::find_if(std::begin(kExportRenderers), std::end(kExportRenderers),
                         [&](const ExportRenderer& r) { return r.format == format; });
  return it == std::end(kExportRenderers) ? nullptr : &*it;
}

}  // namespace

bool HasRenderer(plan::ExportFormat format) { return RendererOf(format) != nullptr; }

std::string RenderExport(plan::ExportFormat format, const ExportReport& report, const plan::ExportConfig& config,
                         std::chrono::system_clock::time_point now) {
  const ExportRenderer* r = RendererOf(format);
  return r ? r->render(report, config, now) : std::string();
}

}  // namespace rocmtune::api
