// Advice that works: the fixes of the assessment's findings are rewritten
// against what this machine already has, so rocmtune never tells a user to do what is done:
//   - a fix naming the profile in effect says it is applied (and that a reboot makes it take
//     effect when one is pending), instead of "apply it" again;
//   - `unset env.X` is only offered for rocmtune's own setting; a variable an admin's file sets is
//     named by file and line, with rocmtune's opt-in way to comment out exactly that line;
//   - a fix's `set`/`unset` that rocmtune already made is said done (or waiting for a reboot),
//     and one an admin's file decides names that file and line;
//   - on a machine where some GPUs can run ROCm work and others cannot, how to hide the others
//     (ROCR_VISIBLE_DEVICES).
#pragma once

#include "diagnose/assess.h"
#include "diagnose/facts.h"

namespace rocmtune::diagnose {

// `facts`: the request's (diagnose/facts.h), the environment files and knobs read once.
void Advise(const Facts& facts, Assessment& assessment);

}  // namespace rocmtune::diagnose
