// A sys::LogRead as rocmtune-helper's `read-log` request answers it (helper/README.md): the
// daemon's user may not read the journal (root:systemd-journal 0640), so rocmtuned asks the helper,
// which reads it as root with sys::ReadSystemLog, and reads the reply back with LogReadFromJson.
// Only the GPU lines ReadSystemLog keeps travel, never the whole journal, and the reply is bounded
// (kMaxLogReplyBytes: the newest entries win, `truncated` says so).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "sys/system_log.h"
#include "util/result.h"

namespace rocmtune::sys {

// The reply's bound, well below what the daemon reads of a helper's reply (4 MiB).
inline constexpr size_t kMaxLogReplyBytes = 2 << 20;
// What the helper reads at most per request (LogQuery::max_entries).
inline constexpr size_t kMaxLogReplyEntries = 2000;

// The query as the request's second line: {"boot": 0|-N|null, "since_usec": N|null,
// "after_cursor": "..."}. Strict: an object with exactly these members.
std::string LogQueryJson(const LogQuery& query);
Result<LogQuery> LogQueryFromJson(std::string_view text);

// The reply, one line of JSON at most kMaxLogReplyBytes (the oldest entries dropped beyond).
std::string LogReadJson(const LogRead& read);
// kInvalidData for anything that is not such a reply (the wrong types, a message beyond
// kMaxMessageBytes, more than kMaxLogReplyEntries entries).
Result<LogRead> LogReadFromJson(std::string_view text);

}  // namespace rocmtune::sys
