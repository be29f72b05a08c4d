#include "knobs/setting_findings.h"

namespace rocmtune::knobs {

std::vector<detect::Finding> ModuleOptionFindings(const KnobContext&) { return {}; }

}  // namespace rocmtune::knobs
