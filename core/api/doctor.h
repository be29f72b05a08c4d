// `doctor`: every check rocmtune can make of this machine (or a --root world), each finding
// saying what is wrong, why, what to do (a profile, knobs or a command) and the source that makes
// it true: status's findings (environment, settings that do nothing or are invalid, the journal's
// pending regenerations), GPU support by the installed ROCm release, PCIe atomics, IOMMU, BAR,
// device access, pending reboot and the known-issue base. With a crash log, the known issues
// whose symptoms it shows, for the GPUs here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/crash_log.h"
#include "api/known_issue_eval.h"
#include "detect/inventory.h"
#include "detect/live_facts.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::api {

struct DoctorFix {
  std::string text;
  std::string profile;
  std::vector<std::string> set;
  std::vector<std::string> unset;
  std::string rocm;
  std::string kernel;
  std::string none;
};

struct DoctorFinding {
  std::string id;  // "issue.<known issue id>", or a check's or status's finding id
  detect::Severity severity = detect::Severity::kInfo;
  std::string subject;  // a GPU id, a variable, a path
  std::string what;
  std::string why;
  DoctorFix fix;
  std::vector<std::string> sources;
  std::string confidence;  // known issues only
  std::vector<std::string> evidence;
  std::vector<std::string> symptoms;  // the log lines' matches (--log)
  std::string file;
  int line = 0;
};

struct DoctorReport {
  std::vector<detect::Gpu> gpus;
  std::vector<DoctorFinding> findings;
  bool log_given = false;
  std::vector<DoctorFinding> log_matches;  // most likely cause first
  std::vector<LogGpuRef> log_names;        // how the log names GPUs (crash_log.h)
  std::vector<std::string> log_gpus;       // the GPUs here it names; none: matched against every GPU
};

// `log`: the crash log's text, when one was given.
Result<DoctorReport> Doctor(const sys::Root& root, std::optional<std::string> log = std::nullopt);
// Whether something is wrong: a warning or an error, among the findings or the log's matches.
bool DoctorFoundProblems(const DoctorReport& report);
nlohmann::ordered_json DoctorJson(const DoctorReport& report);

// A status finding as doctor reports it.
DoctorFinding StatusFinding(const detect::Finding& finding);
// A known issue that holds for a GPU as doctor reports it (id "issue.<id>").
DoctorFinding IssueFinding(const IssueMatch& match);
// A finding of one of doctor's own checks (doctor_checks, doctor_live, doctor_support).
DoctorFinding MakeFinding(std::string id, detect::Severity severity, std::string subject, std::string what,
                          std::string why, std::string fix = "", std::vector<std::string> sources = {});
// A finding's fix as rocmtune.doctor.v1 writes it (unknown parts null).
nlohmann::ordered_json DoctorFixJson(const DoctorFix& fix);

// The machine checks that are not status findings nor known issues (doctor_checks.cc).
std::vector<DoctorFinding> MachineChecks(const sys::Root& root, const detect::Inventory& inventory);
// Each GPU's gfx target against the installed ROCm release's GPU table (doctor_support.cc).
std::vector<DoctorFinding> SupportChecks(const detect::Inventory& inventory);

// The crash log's matches (doctor_log.cc) into report.log_matches, after report.findings are
// complete: the known issues of the GPUs the log names (of every GPU here when it names none, of
// none when it names only GPUs that are not here), `log.missing-code-object` per GPU for a
// missing-code error with the GPU's support finding as its cause and fix, `log.other-gpu` (info)
// and `log.unexplained-crash` (warning) when the log shows a crash and nothing above a note
// explains it.
void AddLogMatches(const sys::Root& root, const detect::Inventory& inventory, std::string_view log,
                   DoctorReport& report);
// Whether a log match names a cause (log.likely_cause), not only what is missing to find one.
bool IsLogCause(const DoctorFinding& finding);

// What rocm-smi-lib's live facts show (doctor_live.cc): uncorrectable (error) and correctable
// (info) ECC errors, a PCIe link below its fastest level (info), many PCIe replays (warning),
// throttling (info), and an info finding when the facts are unknown altogether.
inline constexpr uint64_t kReplayWarning = 100;
std::vector<DoctorFinding> LiveChecks(const std::vector<detect::LiveFacts>& live);

}  // namespace rocmtune::api
