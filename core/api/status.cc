#include "api/status.h"

#include "api/status_json.h"
#include "knobs/env_backend.h"
#include "knobs/file_findings.h"
#include "knobs/registry.h"

namespace rocmtune::api {

StatusReport Status(const sys::Root& root) {
  StatusReport report{detect::Detect(root), {}};
  knobs::KnobContext ctx{root, report.inventory, knowledge::Catalog::Builtin()};
  report.knobs = knobs::ReportKnobs(ctx);
  std::vector<detect::Finding> found = knobs::EnvFindings(ctx);
  for (detect::Finding& f : knobs::UnreadableFileFindings(ctx)) found.push_back(std::move(f));
  for (detect::Finding& f : found) report.inventory.findings.push_back(std::move(f));
  return report;
}

nlohmann::ordered_json DescribeSystem(const sys::Root& root) {
  StatusReport report = Status(root);
  return StatusJson(report.inventory, report.knobs);
}

}  // namespace rocmtune::api
