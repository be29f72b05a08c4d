#include "sys/system_log_json.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/json_limits.h"

namespace rocmtune::sys {
namespace {

using Json = nlohmann::ordered_json;

// A journal's message need not be UTF-8: the reply replaces what is not (never throws).
std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string_view SourceName(LogSource s) {
  switch (s) {
    case LogSource::kJournal: return "journal";
    case LogSource::kKmsg: return "kmsg";
    case LogSource::kNone: return "none";
  }
  return "none";
}

Json EntryJson(const LogEntry& e) {
  return {{"realtime_usec", e.realtime_usec},
          {"boot_id", e.boot_id},
          {"transport", e.transport == LogTransport::kKernel ? "kernel" : "service"},
          {"unit", e.unit},
          {"comm", e.comm},
          {"pid", e.pid ? Json(*e.pid) : Json(nullptr)},
          {"uid", e.uid ? Json(*e.uid) : Json(nullptr)},
          {"message", e.message},
          {"cursor", e.cursor},
          {"written_by_process", e.written_by_process}};
}

Error Bad(std::string_view why) {
  return Error{ErrorCode::kInvalidData, 0, fmt::format("rocmtune-helper's log reply: {}", why)};
}

// The members of `j` are exactly `names`.
bool HasExactly(const Json& j, std::initializer_list<std::string_view> names) {
  if (!j.is_object() || j.size() != names.size()) return false;
  return std::all_of(names.begin(), names.end(), [&j](std::string_view n) { return j.contains(n); });
}

bool Text(const Json& j, std::string_view key, size_t max, std::string& out) {
  const Json& v = j.at(key);
  if (!v.is_string() || v.get_ref<const std::string&>().size() > max) return false;
  out = v.get<std::string>();
  return true;
}

bool Unsigned(const Json& j, std::string_view key, uint64_t& out) {
  const Json& v = j.at(key);
  if (!v.is_number_unsigned()) return false;
  out = v.get<uint64_t>();
  return true;
}

Result<LogEntry> EntryFromJson(const Json& j) {
  if (!HasExactly(j, {"realtime_usec", "boot_id", "transport", "unit", "comm", "pid", "uid", "message", "cursor",
                      "written_by_process"}))
    return tl::unexpected(Bad("an entry is not an object of its ten members"));
  LogEntry e;
  const Json& transport = j.at("transport");
  if (!Unsigned(j, "realtime_usec", e.realtime_usec) || !Text(j, "boot_id", 32, e.boot_id) ||
      !Text(j, "unit", 256, e.unit) || !Text(j, "comm", 256, e.comm) ||
      !Text(j, "message", kMaxMessageBytes + 16, e.message) || !Text(j, "cursor", kMaxCursorBytes, e.cursor) ||
      !j.at("written_by_process").is_boolean() || !transport.is_string() ||
      (transport != "kernel" && transport != "service"))
    return tl::unexpected(Bad("an entry's member has the wrong type or size"));
  e.transport = transport == "kernel" ? LogTransport::kKernel : LogTransport::kService;
  e.written_by_process = j.at("written_by_process").get<bool>();
  const Json& pid = j.at("pid");
  if (pid.is_number_integer()) e.pid = pid.get<int64_t>();
  else if (!pid.is_null()) return tl::unexpected(Bad("an entry's pid is not a number"));
  const Json& uid = j.at("uid");
  if (uid.is_number_unsigned() && uid.get<uint64_t>() <= std::numeric_limits<uint32_t>::max())
    e.uid = static_cast<uint32_t>(uid.get<uint64_t>());
  else if (!uid.is_null()) return tl::unexpected(Bad("an entry's uid is not a uid"));
  return e;
}

}  // namespace

std::string LogQueryJson(const LogQuery& query) {
  return Dump(Json{{"boot", query.boot ? Json(*query.boot) : Json(nullptr)},
                   {"since_usec", query.since_usec ? Json(*query.since_usec) : Json(nullptr)},
                   {"after_cursor", query.after_cursor}});
}

Result<LogQuery> LogQueryFromJson(std::string_view text) {
  auto j = ParseBoundedJson(text, "the read-log query", 2);
  if (!j) return tl::unexpected(j.error());
  auto bad = [] {
    return Fail(ErrorCode::kInvalidArgument,
                "read-log: the query must be {\"boot\": 0, -N or null, \"since_usec\": N or null, "
                "\"after_cursor\": \"...\"}");
  };
  if (!HasExactly(*j, {"boot", "since_usec", "after_cursor"})) return bad();
  LogQuery query;
  query.max_entries = kMaxLogReplyEntries;
  const Json& boot = j->at("boot");
  if (boot.is_number_integer() && boot.get<int64_t>() <= 0 && boot.get<int64_t>() >= -100000)
    query.boot = static_cast<int>(boot.get<int64_t>());
  else if (!boot.is_null()) return bad();
  const Json& since = j->at("since_usec");
  if (since.is_number_unsigned()) query.since_usec = since.get<uint64_t>();
  else if (!since.is_null()) return bad();
  if (!Text(*j, "after_cursor", kMaxCursorBytes, query.after_cursor)) return bad();
  if (query.after_cursor.find_first_of(std::string_view("\0\n", 2)) != std::string::npos) return bad();
  return query;
}

std::string LogReadJson(const LogRead& read) {
  Json boots = Json::array();
  // A journal keeps some hundred boots at most; the newest thousand whatever it holds.
  size_t first_boot = read.boots.size() > 1000 ? read.boots.size() - 1000 : 0;
  for (size_t i = first_boot; i < read.boots.size(); ++i) {
    const LogBoot& b = read.boots[i];
    boots.push_back(
        {{"boot_id", b.boot_id}, {"offset", b.offset}, {"first_usec", b.first_usec}, {"last_usec", b.last_usec}});
  }
  Json doc{{"source", SourceName(read.source)},
           {"why_none", read.why_none},
           {"entries", Json::array()},
           {"boots", std::move(boots)},
           {"last_cursor", read.last_cursor},
           {"truncated", read.truncated},
           {"files_not_permitted", read.files_not_permitted},
           {"files_unreadable", read.files_unreadable}};
  // The newest entries that fit, oldest first.
  size_t budget = kMaxLogReplyBytes - std::min(kMaxLogReplyBytes, Dump(doc).size() + 1);
  size_t first = read.entries.size();
  size_t kept = 0;
  while (first > 0 && kept < kMaxLogReplyEntries) {
    size_t size = Dump(EntryJson(read.entries[first - 1])).size() + 1;
    if (size > budget) break;
    budget -= size;
    --first;
    ++kept;
  }
  Json& entries = doc["entries"];
  for (size_t i = first; i < read.entries.size(); ++i) entries.push_back(EntryJson(read.entries[i]));
  if (first > 0) doc["truncated"] = true;
  return Dump(doc);
}

Result<LogRead> LogReadFromJson(std::string_view text) {
  if (text.size() > kMaxLogReplyBytes + 2) return tl::unexpected(Bad("too large"));
  auto j = ParseBoundedJson(text, "rocmtune-helper's log reply", 4);
  if (!j) return tl::unexpected(j.error());
  if (!HasExactly(*j, {"source", "why_none", "entries", "boots", "last_cursor", "truncated", "files_not_permitted",
                       "files_unreadable"}))
    return tl::unexpected(Bad("not an object of the eight members of a log read"));
  LogRead read;
  const Json& source = j->at("source");
  if (source == "journal") read.source = LogSource::kJournal;
  else if (source == "kmsg") read.source = LogSource::kKmsg;
  else if (source == "none") read.source = LogSource::kNone;
  else return tl::unexpected(Bad("the source is none of journal, kmsg, none"));
  uint64_t not_permitted = 0, unreadable = 0;
  if (!Text(*j, "why_none", 4096, read.why_none) || !Text(*j, "last_cursor", kMaxCursorBytes, read.last_cursor) ||
      !j->at("truncated").is_boolean() || !Unsigned(*j, "files_not_permitted", not_permitted) ||
      !Unsigned(*j, "files_unreadable", unreadable) || !j->at("entries").is_array() || !j->at("boots").is_array())
    return tl::unexpected(Bad("a member has the wrong type or size"));
  read.truncated = j->at("truncated").get<bool>();
  read.files_not_permitted = static_cast<size_t>(not_permitted);
  read.files_unreadable = static_cast<size_t>(unreadable);
  if (j->at("entries").size() > kMaxLogReplyEntries || j->at("boots").size() > 1000)
    return tl::unexpected(Bad("too many entries or boots"));
  for (const Json& e : j->at("entries")) {
    auto entry = EntryFromJson(e);
    if (!entry) return tl::unexpected(entry.error());
    read.entries.push_back(std::move(*entry));
  }
  for (const Json& b : j->at("boots")) {
    LogBoot boot;
    if (!HasExactly(b, {"boot_id", "offset", "first_usec", "last_usec"}) || !Text(b, "boot_id", 32, boot.boot_id) ||
        !b.at("offset").is_number_integer() || b.at("offset").get<int64_t>() > 0 ||
        b.at("offset").get<int64_t>() < -100000 || !Unsigned(b, "first_usec", boot.first_usec) ||
        !Unsigned(b, "last_usec", boot.last_usec))
      return tl::unexpected(Bad("a boot is not an object of boot_id, offset, first_usec, last_usec"));
    boot.offset = static_cast<int>(b.at("offset").get<int64_t>());
    read.boots.push_back(std::move(boot));
  }
  return read;
}

}  // namespace rocmtune::sys
