// Files rocmtune reads to tell what is configured. One it cannot read (no permission, larger
// than Root::kDefaultMaxBytes, not a regular file) leaves what it shows for its knobs a guess:
// it is reported, never taken as "not set" or, for rocmtune's own files, "removed".
#pragma once

#include <vector>

#include "detect/finding.h"
#include "knobs/backend.h"

namespace rocmtune::knobs {

// "file.unreadable" findings, subject "/<path>": an error for rocmtune's own files, a warning
// for the modprobe.d, environment and GRUB files of others that decide knob values.
std::vector<detect::Finding> UnreadableFileFindings(const KnobContext& ctx);

}  // namespace rocmtune::knobs
