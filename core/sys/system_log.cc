// Placeholder until the reader (sd-journal, /dev/kmsg) lands from its own branch: no log read.
#include "sys/system_log.h"

namespace rocmtune::sys {

Result<LogRead> ReadSystemLog(const Root& /*root*/, const LogQuery& /*query*/) {
  LogRead out;
  out.source = LogSource::kNone;
  out.why_none = "this build of rocmtune reads no system log";
  return out;
}

}  // namespace rocmtune::sys
