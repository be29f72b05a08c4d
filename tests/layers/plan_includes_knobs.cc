// Plan data (below knobs) reaching for the knob registry: must not compile as part of
// rocmtune-plan (layers.plan_includes_knobs.fails), compiles as part of rocmtune-knobs.
#include "knobs/registry.h"
#include "plan/plan.h"

namespace rocmtune::layers_probe {
const knobs::Registry& PlanSeesKnobs() { return knobs::Registry::Builtin(); }
}  // namespace rocmtune::layers_probe
