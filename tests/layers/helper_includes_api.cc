// The helper reaching for the status document builder: must not compile against
// rocmtune-helper-lib (layers.helper_includes_api.fails), compiles against rocmtune-api.
#include "api/status_json.h"

namespace rocmtune::layers_probe {
const char* HelperSeesApi() { return api::kStatusSchema; }
}  // namespace rocmtune::layers_probe
