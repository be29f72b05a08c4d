// GPU fault records (rocmtune.faults.v1's "faults", doctor's "faults") as people read them: one
// sentence saying who hit what on which GPU when and with which override, then the likely cause
// and its fix.
#pragma once

#include "client/document.h"

namespace rocmtune::client {

// "python3 (pid 4242, user alice) hit a GPU page fault on card1 (0000:03:00.0, gfx1010) at
// 2026-11-29T14:03:00Z with HSA_OVERRIDE_GFX_VERSION=10.3.0"
std::string FaultSentence(const Doc& record);
// The sentence, then the likely cause, its fix and the record's first lines, indented.
void PrintFaultRecord(const Doc& record, bool lines);

}  // namespace rocmtune::client
