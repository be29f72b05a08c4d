// The client reaching for a daemon header: must not compile against rocmtune-client
// (layers.client_includes_daemon.fails), compiles against rocmtuned-lib. What both need is the
// bus contract (bus/contract.h), which both link.
#include "daemon/manager.h"

namespace rocmtune::layers_probe {
long long ClientSeesDaemon() { return daemon::kLiveFactsMaxAge.count(); }
}  // namespace rocmtune::layers_probe
