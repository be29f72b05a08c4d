#include "faults/cause.h"

#include <utility>

namespace rocmtune::faults {

void AddCauses(const sys::Root& root, std::vector<FaultRecord>& records, diagnose::Assessment& assessment) {
  std::vector<detect::Finding> matches = std::move(assessment.log_matches);
  std::vector<diagnose::LogGpuRef> names = std::move(assessment.log_names);
  std::vector<std::string> gpus = std::move(assessment.log_gpus);
  for (FaultRecord& r : records) {
    assessment.log_matches.clear();
    assessment.log_names.clear();
    assessment.log_gpus.clear();
    // A runtime line of a service names its KFD node; a kernel line its PCI address: either way
    // the matcher blames the GPU the lines name, as for a pasted log.
    diagnose::AddLogMatches(root, r.Text(), r.env, assessment);
    r.causes = std::move(assessment.log_matches);
  }
  assessment.log_matches = std::move(matches);
  assessment.log_names = std::move(names);
  assessment.log_gpus = std::move(gpus);
}

const detect::Finding* LikelyCause(const FaultRecord& record) {
  for (const detect::Finding& f : record.causes)
    if (diagnose::IsLogCause(f)) return &f;
  return nullptr;
}

}  // namespace rocmtune::faults
