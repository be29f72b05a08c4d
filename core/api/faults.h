// `rocmtunectl faults`, doctor's "GPU faults" section, check-compute's note, rocmtuned's Faults
// and the export: the GPU faults the system's log recorded (sys/system_log.h) as records
// (faults/fault.h) with the process, the user and the likely cause. What the caller may read of
// the log is what sd-journal lets it read; rocmtuned filters further to the caller's own records
// (daemon/README.md).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "diagnose/assess.h"
#include "faults/fault.h"
#include "sys/root.h"
#include "sys/system_log.h"
#include "util/result.h"

namespace rocmtune::api {

// How the log is read: sys::ReadSystemLog, or a test's entries.
using LogReader = std::function<Result<sys::LogRead>(const sys::Root&, const sys::LogQuery&)>;
LogReader SystemLogReader();

struct FaultsOptions {
  std::optional<int> boot;             // journalctl -b's offset; none: every boot the log holds
  std::optional<uint64_t> since_usec;  // only records from then on
  std::string after_cursor;            // only what is newer than this cursor (rocmtuned's saved one)
  bool causes = true;                  // match each record's lines (doctor --log's matcher)
  bool causes_this_boot_only = false;  // doctor: earlier boots are counted, not explained
  LogReader read_log;                  // empty: SystemLogReader()
};

struct FaultsReport {
  sys::LogSource source = sys::LogSource::kNone;
  std::string why_none;  // kNone: why no log was read
  bool truncated = false;
  std::string this_boot_id;
  std::vector<faults::FaultRecord> records;  // oldest first
  std::string last_cursor;                   // pass back as after_cursor to read only newer ones
};

// The records of the log beneath `root`, their causes matched on `assessment` (doctor's own).
Result<FaultsReport> Faults(const sys::Root& root, diagnose::Assessment& assessment, const FaultsOptions& options);
// The same with an assessment made for it (no live facts).
Result<FaultsReport> Faults(const sys::Root& root, const FaultsOptions& options);

// What rocmtuned may show a caller of its Faults method (daemon/README.md): the records of that
// uid's own processes (the service entry's _UID, the running process's owner); a record whose
// user is unknown (a kernel fault of a process gone) is nobody's to show but an admin's.
// `everything`: the caller is root or an admin, who may read the whole journal anyway.
void KeepCallersFaults(FaultsReport& report, uint32_t uid, bool everything);
// Whether `uid` may see every fault: root, or a member (primary or listed) of one of the groups
// that may read the whole journal or administer the machine (sudo, wheel, adm, systemd-journal),
// as the root's etc/passwd and etc/group say.
bool SeesEveryFault(const sys::Root& root, uint32_t uid);

// Whether `record` happened in this boot.
bool ThisBoot(const FaultsReport& report, const faults::FaultRecord& record);

// `since` as `rocmtunectl faults --since` takes it: seconds since the epoch ("@1764400000"), an
// ISO date or date and time in UTC ("2026-11-29", "2026-11-29T14:03:00", "2026-11-29 14:03"), or a
// time ago ("30min", "2h", "3d"). kInvalidArgument otherwise. `now_usec`: the clock.
Result<uint64_t> ParseSince(std::string_view since, uint64_t now_usec);

// A record's time as the documents write it: "2026-11-29T14:03:00Z" (UTC).
std::string FaultTimeText(uint64_t usec);

nlohmann::ordered_json FaultRecordJson(const faults::FaultRecord& record);
// rocmtune.faults.v1 (rocmtunectl(1), JSON DOCUMENTS).
nlohmann::ordered_json FaultsJson(const FaultsReport& report);
// doctor's "faults" member: this boot's records with their cause and fix, and how many more the
// earlier boots had.
nlohmann::ordered_json DoctorFaultsJson(const FaultsReport& report);

}  // namespace rocmtune::api
