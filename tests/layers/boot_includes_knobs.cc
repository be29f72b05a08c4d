// A boot setup reaching up for the backends that ask it (the cmdline and modprobe backends'
// KnobContext): must not compile as part of rocmtune-boot (layers.boot_includes_knobs.fails);
// compiles as part of rocmtune-knobs. A setup takes boot::BootContext, which a KnobContext is.
#include "boot/setup.h"
#include "knobs/backend.h"

namespace rocmtune::layers_probe {
size_t BootSeesKnobs() { return sizeof(knobs::KnobContext); }
}  // namespace rocmtune::layers_probe
