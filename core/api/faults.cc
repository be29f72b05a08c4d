#include "api/faults.h"

#include <chrono>
#include <ctime>

#include <fmt/format.h>

#include "faults/cause.h"
#include "faults/process.h"
#include "faults/records.h"
#include "util/text.h"

namespace rocmtune::api {

LogReader SystemLogReader() { return sys::ReadSystemLog; }

bool ThisBoot(const FaultsReport& report, const faults::FaultRecord& r) {
  if (r.boot) return *r.boot == 0;
  return !report.this_boot_id.empty() && r.boot_id == report.this_boot_id;
}

Result<FaultsReport> Faults(const sys::Root& root, diagnose::Assessment& assessment, const FaultsOptions& options) {
  sys::LogQuery query;
  query.boot = options.boot;
  query.since_usec = options.since_usec;
  query.after_cursor = options.after_cursor;
  const LogReader read = options.read_log ? options.read_log : SystemLogReader();
  auto log = read(root, query);
  if (!log) return tl::unexpected(log.error());
  FaultsReport report;
  report.source = log->source;
  report.why_none = log->why_none;
  report.truncated = log->truncated;
  report.last_cursor = log->last_cursor;
  report.this_boot_id = faults::ThisBootId(root);
  report.records = faults::RecordsFromLog(log->entries, assessment.inventory);
  faults::SetBootOffsets(report.records, log->boots);
  // The reader filters by time already; a record starting before `since` is not one of them.
  if (options.since_usec)
    std::erase_if(report.records, [&](const faults::FaultRecord& r) { return r.realtime_usec < *options.since_usec; });
  faults::AddProcessFacts(root, report.this_boot_id, report.records);
  if (options.causes) {
    if (!options.causes_this_boot_only) {
      faults::AddCauses(root, report.records, assessment);
    } else {
      std::vector<faults::FaultRecord> now;
      std::vector<size_t> at;
      for (size_t i = 0; i < report.records.size(); ++i)
        if (ThisBoot(report, report.records[i])) {
          now.push_back(std::move(report.records[i]));
          at.push_back(i);
        }
      faults::AddCauses(root, now, assessment);
      for (size_t i = 0; i < at.size(); ++i) report.records[at[i]] = std::move(now[i]);
    }
  }
  return report;
}

void KeepCallersFaults(FaultsReport& report, uint32_t uid, bool everything) {
  if (everything) return;
  std::erase_if(report.records, [uid](const faults::FaultRecord& r) { return !r.uid || *r.uid != uid; });
}

bool SeesEveryFault(const sys::Root& root, uint32_t uid) {
  if (uid == 0) return true;
  const std::string id = std::to_string(uid);
  std::string name, gid;
  // Held here: a range-for over views of a temporary would read it after it is freed.
  const std::string passwd = root.ReadFile("etc/passwd").value_or("");
  const std::string group = root.ReadFile("etc/group").value_or("");
  for (std::string_view line : text::SplitLines(passwd)) {
    const std::vector<std::string_view> f = text::SplitFields(line, ':');
    if (f.size() > 3 && f[2] == id) {
      name = std::string(f[0]);
      gid = std::string(f[3]);
      break;
    }
  }
  if (name.empty()) return false;
  for (std::string_view line : text::SplitLines(group)) {
    const std::vector<std::string_view> f = text::SplitFields(line, ':');
    if (f.size() < 4) continue;
    if (f[0] != "sudo" && f[0] != "wheel" && f[0] != "adm" && f[0] != "systemd-journal") continue;
    if (f[2] == gid) return true;
    for (std::string_view member : text::SplitFields(f[3], ','))
      if (member == name) return true;
  }
  return false;
}

Result<FaultsReport> Faults(const sys::Root& root, const FaultsOptions& options) {
  diagnose::AssessOptions assess;
  assess.live_facts = false;
  assess.caller = false;
  auto assessment = diagnose::Assess(root, detect::Detect(root), assess);
  if (!assessment) return tl::unexpected(assessment.error());
  return Faults(root, *assessment, options);
}

namespace {

std::optional<uint64_t> Ago(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
  auto count = text::ParseU64(s.substr(0, n));
  if (!count || *count > 1'000'000'000) return std::nullopt;
  std::string_view unit = s.substr(n);
  for (auto [name, seconds] : {std::pair<std::string_view, uint64_t>{"s", 1},
                               {"min", 60},
                               {"m", 60},
                               {"h", 3600},
                               {"d", 86400},
                               {"w", 604800}})
    if (unit == name) return *count * seconds * 1'000'000;
  return std::nullopt;
}

// A field of `s` at [at, at + n) as a number, only digits.
std::optional<int> DatePart(std::string_view s, size_t at, size_t n) {
  if (s.size() < at + n) return std::nullopt;
  auto v = text::ParseU64(s.substr(at, n));
  if (!v || s.substr(at, n).find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  return static_cast<int>(*v);
}

// "YYYY-MM-DD", "YYYY-MM-DD[T ]HH:MM" or "YYYY-MM-DD[T ]HH:MM:SS", in UTC.
std::optional<uint64_t> UtcDate(std::string_view s) {
  if (s.size() != 10 && s.size() != 16 && s.size() != 19) return std::nullopt;
  if (s[4] != '-' || s[7] != '-') return std::nullopt;
  auto year = DatePart(s, 0, 4), mon = DatePart(s, 5, 2), day = DatePart(s, 8, 2);
  std::optional<int> hour = 0, min = 0, sec = 0;
  if (s.size() > 10) {
    if ((s[10] != 'T' && s[10] != ' ') || s[13] != ':') return std::nullopt;
    hour = DatePart(s, 11, 2);
    min = DatePart(s, 14, 2);
    if (s.size() == 19) sec = s[16] == ':' ? DatePart(s, 17, 2) : std::nullopt;
  }
  if (!year || !mon || !day || !hour || !min || !sec) return std::nullopt;
  if (*mon < 1 || *mon > 12 || *day < 1 || *day > 31 || *hour > 23 || *min > 59 || *sec > 60 || *year < 1970)
    return std::nullopt;
  std::tm tm{};
  tm.tm_year = *year - 1900;
  tm.tm_mon = *mon - 1;
  tm.tm_mday = *day;
  tm.tm_hour = *hour;
  tm.tm_min = *min;
  tm.tm_sec = *sec;
  time_t t = timegm(&tm);
  if (t < 0) return std::nullopt;
  return static_cast<uint64_t>(t) * 1'000'000;
}

}  // namespace

Result<uint64_t> ParseSince(std::string_view since, uint64_t now_usec) {
  std::string_view s = text::Trim(since);
  if (s.starts_with("@")) {
    if (auto v = text::ParseU64(s.substr(1)); v && *v < (UINT64_MAX / 1'000'000)) return *v * 1'000'000;
  } else if (auto ago = Ago(s)) {
    return now_usec > *ago ? now_usec - *ago : 0;
  } else if (auto date = UtcDate(s)) {
    return *date;
  }
  return Fail(ErrorCode::kInvalidArgument,
              fmt::format("--since {}: give @SECONDS, a UTC date or date and time (2026-11-29, 2026-11-29T14:03:00) "
                          "or a time ago (30min, 2h, 3d)",
                          text::EscapeControl(since)));
}

}  // namespace rocmtune::api
