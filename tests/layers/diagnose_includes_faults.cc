// The assessment (below faults: the records take their cause from its crash-log matcher)
// reaching for a fault record: must not compile as part of rocmtune-diagnose
// (layers.diagnose_includes_faults.fails).
#include "diagnose/assess.h"
#include "faults/fault.h"

namespace rocmtune::layers_probe {
size_t DiagnoseSeesFaults() { return sizeof(faults::FaultRecord); }
}  // namespace rocmtune::layers_probe
