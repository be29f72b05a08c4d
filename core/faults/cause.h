// The likely cause of each fault record: doctor --log's matcher (diagnose::AddLogMatches) fed the
// record's lines as the log and the record's environment (faults/process.h) as the program's, on
// the same assessment doctor makes. There is no second matcher: a record says what
// `rocmtunectl doctor --log` says of the same lines.
#pragma once

#include <vector>

#include "diagnose/assess.h"
#include "faults/fault.h"
#include "sys/root.h"

namespace rocmtune::faults {

// Fills `causes` of each record (most likely first). `assessment`'s log fields are left as they
// were.
void AddCauses(const sys::Root& root, std::vector<FaultRecord>& records, diagnose::Assessment& assessment);

// The record's likely cause: its first cause that names one (diagnose::IsLogCause), or none.
const detect::Finding* LikelyCause(const FaultRecord& record);

}  // namespace rocmtune::faults
