// `rocmtune-helper publish` (and the socket's `publish` line): writes the export files
// /etc/rocmtune/export.toml enables (plan/publish.h) — the helper reads that file itself, writes
// only the fixed names in the directories it names, and only content that passes
// plan::CheckPublishContent. Atomic (a dot-named temporary neither engine reads, then rename),
// under the writer lock, not journaled: an export is rewritten from the machine's state each
// time. A target the admin disabled loses the file rocmtune wrote there.
#pragma once

#include <string_view>

#include "helper/executor.h"
#include "helper/step_hook.h"
#include "sys/root.h"

namespace rocmtune::helper {

Outcome Publish(const sys::Root& root, StepHook& hook, std::string_view request, bool wait);

}  // namespace rocmtune::helper
