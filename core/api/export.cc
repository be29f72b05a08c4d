#include "api/export.h"

#include <algorithm>
#include <utility>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/check_compute.h"
#include "api/live_json.h"
#include "api/system.h"
#include "api/trial.h"
#include "diagnose/journal_access.h"
#include "journal/attention.h"
#include "journal/writer_probe.h"
#include "knowledge/family.h"
#include "knowledge/known_issues.h"

namespace rocmtune::api {

namespace {

using json = nlohmann::ordered_json;

json NullIfEmpty(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

std::string Rfc3339(std::chrono::system_clock::time_point t) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", std::chrono::floor<std::chrono::seconds>(t));
}

void AddJournal(const sys::Root& root, const detect::Inventory& inventory, ExportReport& report) {
  for (const std::string& s : TransactionStates()) report.transactions[s] = 0;
  auto txns = journal::Load(root);
  if (!txns) {
    report.journal_known = false;
    report.journal_note = diagnose::JournalNotPermitted(txns.error())
                              ? diagnose::JournalUnknownNote(txns.error())
                              : fmt::format("the journal cannot be read: {}", txns.error().message);
    return;
  }
  for (const journal::Transaction& t : *txns) ++report.transactions[std::string(journal::StateName(t.state))];
  report.interrupted = journal::Interrupted(*txns, journal::LastIsRunning(root, *txns)).size();
  if (!txns->empty() && txns->back().state == journal::State::kRolledBack) {
    report.last_failed = true;
    report.last_failure = txns->back().rollback_reason;
  }
  auto own = root.Duplicate();  // a System owns its root
  if (!own) {
    report.journal_known = false;
    report.journal_note = own.error().message;
    return;
  }
  report.verify = Verify(System{std::move(*own), inventory, std::move(*txns)});
}

}  // namespace

const std::vector<std::string>& ExportWorkloads() {
  static const std::vector<std::string> kAll = [] {
    std::vector<std::string> out{std::string(knowledge::kWorkloadAny)};
    for (std::string_view w : knowledge::kWorkloads) out.emplace_back(w);
    return out;
  }();
  return kAll;
}

const std::vector<std::string>& ExportSeverities() {
  static const std::vector<std::string> kSeverities = {"error", "warning", "info"};
  return kSeverities;
}

const std::vector<std::string>& TransactionStates() {
  static const std::vector<std::string> kStates = [] {
    std::vector<std::string> out;
    for (journal::State s : {journal::State::kCommitted, journal::State::kRolledBack, journal::State::kIncomplete})
      out.emplace_back(journal::StateName(s));
    return out;
  }();
  return kStates;
}

const std::vector<std::string>& TrialStates() {
  static const std::vector<std::string> kStates = [] {
    std::vector<std::string> out{"none"};
    for (plan::TrialPhase p : {plan::TrialPhase::kPrepared, plan::TrialPhase::kBooted, plan::TrialPhase::kConfirmed,
                               plan::TrialPhase::kCommitted, plan::TrialPhase::kFailed, plan::TrialPhase::kCleaned,
                               plan::TrialPhase::kCancelled})
      out.emplace_back(plan::TrialPhaseName(p));
    return out;
  }();
  return kStates;
}

namespace {

// This boot's faults as counts: every card of the inventory with every kind (0 included, so a
// series exists before the first fault), and a card "unknown" only when a fault names no GPU here.
void AddExportFaults(const sys::Root& root, const LogReader& read, ExportReport& report) {
  FaultsOptions options;
  options.boot = 0;
  options.causes = false;
  options.read_log = read;
  auto found = Faults(root, report.assessment, options);
  if (!found || found->source == sys::LogSource::kNone) return;
  report.faults_read = true;
  for (const detect::Gpu& g : report.assessment.inventory.gpus)
    for (const faults::FaultKindInfo& k : faults::FaultKinds())
      report.faults[{g.card.value_or(g.id), std::string(k.name)}] = 0;
  for (const faults::FaultRecord& r : found->records) {
    if (!ThisBoot(*found, r)) continue;
    std::string card = r.card ? *r.card : r.gpu.empty() ? "unknown" : r.gpu;
    ++report.faults[{card, std::string(faults::FaultKindName(r.kind))}];
    uint64_t& last = report.last_fault_usec[card];
    last = std::max(last, r.realtime_usec);
  }
}

}  // namespace

Result<ExportReport> Export(const sys::Root& root, const detect::Inventory& inventory, const ExportOptions& options) {
  diagnose::AssessOptions assess;
  assess.live_facts = options.live_facts;
  assess.known_live = options.known_live;
  assess.caller = false;  // the machine's export, as rocmtuned's Describe: no one user's session
  assess.services = true;
  auto assessment = diagnose::Assess(root, inventory, assess);
  if (!assessment) return tl::unexpected(assessment.error());

  ExportReport report;
  report.version = options.version;
  report.time = Rfc3339(std::chrono::system_clock::now());
  report.assessment = std::move(*assessment);
  if (options.read_faults) AddExportFaults(root, options.read_faults, report);
  const diagnose::Assessment& a = report.assessment;

  // The machine's answer is check-compute's (ComputeReport::state: the GPUs programs see), per GPU its verdict.
  std::map<std::string, ComputeReport> by_workload;
  for (const std::string& w : ExportWorkloads()) {
    ComputeReport& cr = by_workload[w] = ComputeReportOf(a, w);
    report.safe[w] = cr.safe();
    report.state[w] = cr.state();
  }
  for (size_t i = 0; i < a.inventory.gpus.size(); ++i) {
    ExportGpu out;
    out.gpu = a.inventory.gpus[i];
    for (const std::string& w : ExportWorkloads()) {
      const ComputeGpu& verdict = by_workload[w].gpus[i];
      out.safe[w] = verdict.safe();
      out.state[w] = verdict.state;
      out.visible = verdict.visible;
      if (w == knowledge::kWorkloadAny) {
        out.usable = verdict.usable();
        out.supported = verdict.state != diagnose::State::kUnsupported;
      }
    }
    if (a.live && i < a.live->size()) out.live = (*a.live)[i];
    report.gpus.push_back(std::move(out));
  }
  for (const knobs::KnobState& k : a.knobs) report.reboot_pending |= k.pending_reboot;
  for (const std::string& s : ExportSeverities()) report.findings[s] = 0;
  for (const detect::Finding& f : a.findings) ++report.findings[std::string(detect::SeverityName(f.severity))];

  AddJournal(root, inventory, report);
  auto trial = ReadTrial(root);
  if (!trial) report.trial_error = trial.error().message;
  else if (*trial) report.trial = std::string(plan::TrialPhaseName((*trial)->state));
  return report;
}

json ExportJson(const ExportReport& report) {
  const diagnose::Assessment& a = report.assessment;
  json gpus = json::array();
  for (const ExportGpu& g : report.gpus) {
    json safe = json::object();
    for (const auto& [w, ok] : g.safe) safe[w] = ok;
    json gpu = {{"id", g.gpu.id},
                {"card", g.gpu.card ? json(*g.gpu.card) : json(nullptr)},
                {"name", g.gpu.marketing_name},
                {"gfx_target", g.gpu.gfx_target ? json(*g.gpu.gfx_target) : json(nullptr)},
                {"family", g.gpu.family ? json(knowledge::FamilyName(*g.gpu.family)) : json(nullptr)},
                {"usable", g.usable},
                {"supported", g.supported},
                {"safe", safe}};
    if (g.live) gpu["live"] = LiveJson(*g.live);
    gpus.push_back(std::move(gpu));
  }
  json safe = json::object();
  for (const std::string& w : ExportWorkloads()) safe[w] = report.safe.at(w);
  json findings = json::array();
  for (const detect::Finding& f : a.findings)
    findings.push_back({{"id", f.id},
                        {"severity", detect::SeverityName(f.severity)},
                        {"gpu", NullIfEmpty(f.gpu)},
                        {"effect", detect::EffectName(f.effect)}});
  json counts = json::object();
  for (const std::string& s : ExportSeverities()) counts[s] = report.findings.at(s);
  json doc = {
      {"schema", kExportSchema},
      {"version", report.version},
      {"time", report.time},
      {"rocm_version", a.inventory.system.rocm_version ? json(*a.inventory.system.rocm_version) : json(nullptr)},
      {"gpus", gpus},
      {"compute_safe", safe},
      {"findings", findings},
      {"finding_counts", counts},
      {"profile", NullIfEmpty(a.active_profile)},
      {"pending_reboot", report.reboot_pending},
      {"journal_readable", report.journal_known}};
  if (!report.journal_known) {
    doc["journal_note"] = report.journal_note;
  } else {
    json differences = json::object();
    for (const DifferenceKindRow& k : DifferenceKinds()) differences[k.name] = 0;
    for (const Difference& d : report.verify->differences)
      differences[DifferenceKindName(d.kind)] = differences[DifferenceKindName(d.kind)].get<int>() + 1;
    json txns = json::object();
    for (const std::string& s : TransactionStates()) txns[s] = report.transactions.at(s);
    doc["in_effect"] = report.verify->ok();
    doc["differences"] = differences;
    doc["transactions"] = txns;
    doc["interrupted"] = report.interrupted;
    doc["last_transaction_failed"] = report.last_failed;
    doc["last_failure"] = NullIfEmpty(report.last_failure);
  }
  doc["trial"] = report.trial;
  doc["trial_error"] = NullIfEmpty(report.trial_error);
  // This boot's GPU faults by card and kind, null when the log was not read.
  json faults = nullptr;
  if (report.faults_read) {
    faults = json::object();
    for (const auto& [key, n] : report.faults) faults[key.first]["counts"][key.second] = n;
    for (const auto& [card, usec] : report.last_fault_usec) faults[card]["last_fault"] = FaultTimeText(usec);
  }
  doc["faults"] = faults;
  return doc;
}

}  // namespace rocmtune::api
