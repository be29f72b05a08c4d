// A backend reaching up for the planner that drives backends: must not compile as part of
// rocmtune-knobs (layers.knobs_includes_planner.fails), compiles as part of rocmtune-planner.
#include "knobs/backend.h"
#include "planner/planner.h"

namespace rocmtune::layers_probe {
size_t KnobsSeePlanner() { return sizeof(plan::Request); }
}  // namespace rocmtune::layers_probe
