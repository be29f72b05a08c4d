// check-compute's note on the GPU faults of this boot under the current configuration.
//
// How the verdict uses them: the verdict is read off the findings for the program asked about
// (its environment, its workload; diagnose::VerdictFor), and a fault stays beside it as evidence,
// never a second verdict. A fault counts when it happened on the GPU in this boot after
// rocmtune's last change (the journal's last transaction; the boot's kernel options and module
// options cannot change within a boot, rocmtune's runtime and environment settings only through a
// transaction): then the configuration the program would run under is the one that faulted.
//   - Its likely cause is one of the verdict's reasons: a warning that confirms the reason (the
//     GPU is already not safe for it): this configuration crashed in this boot.
//   - Otherwise: a note. The fault may be another program's, another workload's or another
//     environment's; rocmtune cannot tell it will happen to this one, so the verdict stands, and
//     the note says which fault to look at first (rocmtunectl faults --boot 0).
#include <ctime>

#include <fmt/format.h>

#include "api/check_compute.h"
#include "api/faults.h"
#include "faults/cause.h"
#include "journal/journal.h"

namespace rocmtune::api {
namespace {

// The journal's last transaction time (UTC ISO 8601) in microseconds; 0 when none or unreadable.
uint64_t LastChangeUsec(const sys::Root& root) {
  auto txs = journal::Load(root);
  if (!txs || txs->empty()) return 0;
  std::tm tm{};
  const std::string& t = txs->back().time;
  if (!strptime(t.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return 0;
  time_t s = timegm(&tm);
  return s > 0 ? static_cast<uint64_t>(s) * 1'000'000 : 0;
}

std::string Who(const faults::FaultRecord& r) {
  std::string who = r.process.empty() ? (r.unit.empty() ? "a program" : r.unit) : r.process;
  if (r.pid) who += fmt::format(" (pid {})", *r.pid);
  return who;
}

}  // namespace

void AddFaultNotes(const sys::Root& root, diagnose::Assessment& assessment, ComputeReport& report,
                   const LogReader& read) {
  FaultsOptions options;
  options.boot = 0;
  options.read_log = read;
  auto found = Faults(root, assessment, options);
  if (!found) return;  // no log, no evidence: the verdict never depended on it
  const uint64_t since = LastChangeUsec(root);
  for (ComputeGpu& g : report.gpus) {
    std::vector<const faults::FaultRecord*> mine;
    for (const faults::FaultRecord& r : found->records)
      if (r.gpu == g.gpu.id && ThisBoot(*found, r) && r.realtime_usec >= since) mine.push_back(&r);
    if (mine.empty()) continue;
    const faults::FaultRecord& last = *mine.back();
    const detect::Finding* cause = faults::LikelyCause(last);
    bool confirms = false;
    for (const ComputeReason& reason : g.reasons) confirms = confirms || (cause && reason.finding.id == cause->id);
    detect::Finding f = diagnose::MakeFinding(
        diagnose::FindingName(diagnose::FindingId::kFaultThisBoot),
        confirms ? diagnose::Severity::kWarning : diagnose::Severity::kInfo, g.gpu.id,
        fmt::format("This GPU faulted {} time{} in this boot under the current configuration; last: {} hit {} at {}",
                    mine.size(), mine.size() == 1 ? "" : "s", Who(last), faults::FaultKindDescription(last.kind),
                    FaultTimeText(last.realtime_usec)),
        confirms
            ? fmt::format("Its likely cause, {}, is one of this verdict's reasons: this configuration already "
                          "crashed a program on this GPU in this boot",
                          cause->id)
            : fmt::format("{}; the verdict is about the program asked about and stands, but look at this fault "
                          "first: it happened with the settings that are in effect now",
                          cause ? fmt::format("Its likely cause is {}, not one of this verdict's reasons", cause->id)
                                : std::string("No known issue explains it")),
        "rocmtunectl faults --boot 0");
    f.gpu = g.gpu.id;
    f.kind = detect::Kind::kLog;
    for (const faults::FaultRecord* r : mine)
      f.evidence.push_back(fmt::format("{}: {} {}{}", FaultTimeText(r->realtime_usec), Who(*r),
                                       faults::FaultKindName(r->kind),
                                       faults::LikelyCause(*r) ? " (" + faults::LikelyCause(*r)->id + ")" : ""));
    g.notes.push_back({detect::EffectName(f.effect), std::move(f)});
  }
}

}  // namespace rocmtune::api
