// `doctor`: the assessment (diagnose/assess.h) as a list of problems to act on — each finding
// saying what is wrong, why, what to do (a profile, knobs or a command) and the source that makes
// it true. With a crash log, the known issues whose symptoms it shows, for the GPUs here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "api/faults.h"
#include "diagnose/assess.h"
#include "diagnose/finding.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::api {

using DoctorFix = detect::Fix;
using DoctorFinding = detect::Finding;

struct DoctorReport {
  std::vector<detect::Gpu> gpus;
  std::vector<DoctorFinding> findings;
  bool log_given = false;
  std::vector<DoctorFinding> log_matches;      // most likely cause first
  std::vector<diagnose::LogGpuRef> log_names;  // how the log names GPUs (diagnose/crash_log.h)
  std::vector<std::string> log_gpus;           // the GPUs here it names; none: matched against every GPU
  // The GPU faults the system's log recorded (api/faults.h), when doctor read it: this boot's
  // with their cause, the earlier boots' counted.
  std::optional<FaultsReport> faults;
};

struct DoctorOptions {
  std::optional<std::string> log;             // the crash log's text, when one was given
  bool caller = true;                         // diagnose::AssessOptions::caller (false for rocmtuned)
  std::vector<knobs::EnvSetting> caller_env;  // diagnose::AssessOptions::caller_env
  bool faults = false;                        // read the system's log for GPU faults (rocmtunectl doctor)
  LogReader read_log;                         // how (empty: SystemLogReader())
};
Result<DoctorReport> Doctor(const sys::Root& root, DoctorOptions options);
// `log`: the crash log's text, when one was given.
Result<DoctorReport> Doctor(const sys::Root& root, std::optional<std::string> log = std::nullopt);
// The report of an assessment made already.
DoctorReport DoctorOf(diagnose::Assessment assessment);
// Whether something is wrong: a warning or an error, among the findings, the log's matches or
// the likely causes of this boot's GPU faults.
bool DoctorFoundProblems(const DoctorReport& report);
nlohmann::ordered_json DoctorJson(const DoctorReport& report);
// What every document says of a finding first: id, severity, kind, effect, gpu, subject
// (rocmtune.status.v1 and rocmtune.doctor.v1 add their own fields after these).
nlohmann::ordered_json FindingHeadJson(const DoctorFinding& finding);
// One finding as rocmtune.doctor.v1 and rocmtune.check_compute.v1 write it.
nlohmann::ordered_json DoctorFindingJson(const DoctorFinding& finding);
// Every place that writes the finding's setting, file/line first: [{"file", "line"}] (empty array
// when the finding is not about a line of a file).
nlohmann::ordered_json PlacesJson(const DoctorFinding& finding);
// A finding's fix as rocmtune.doctor.v1 writes it (unknown parts null).
nlohmann::ordered_json DoctorFixJson(const DoctorFix& fix);

}  // namespace rocmtune::api
