// The journal (below knobs: it needs plan data only) reaching for a backend: must not compile
// as part of rocmtune-journal (layers.journal_includes_knobs.fails).
#include "journal/journal.h"
#include "knobs/backend.h"

namespace rocmtune::layers_probe {
size_t JournalSeesKnobs() { return sizeof(knobs::KnobState); }
}  // namespace rocmtune::layers_probe
