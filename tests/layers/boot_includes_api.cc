// A boot setup reaching up for the trial's life in api (prepare, commit, recover): must not
// compile as part of rocmtune-boot (layers.boot_includes_api.fails); the setup only plans the
// entry and the switch (boot/setup.h PlanTrial), api/trial.cc decides when.
#include "api/trial.h"
#include "boot/setup.h"

namespace rocmtune::layers_probe {
size_t BootSeesApi() { return sizeof(api::TrialAdminCheck) + sizeof(boot::TrialBoot); }
}  // namespace rocmtune::layers_probe
