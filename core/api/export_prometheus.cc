// The export in Prometheus' text exposition format 0.0.4 (prometheus.io/docs/instrumenting/
// exposition_formats; naming: prometheus.io/docs/practices/naming). node_exporter's textfile
// collector reads it from `*.prom` files: no timestamps (it refuses them), one block per family.
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "api/export.h"
#include "detect/pci_address.h"
#include "knowledge/family.h"
#include "knowledge/known_issues.h"

namespace rocmtune::api {

namespace {

using PromLabels = std::vector<std::pair<std::string, std::string>>;

// A label value: backslash, double quote and line feed escaped (the format's three); any other
// control byte, which a sysfs capture can hold, becomes '?'.
std::string Escape(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += '?';
    else out += c;
  }
  return out;
}

// Families in the order they were first added, each with its samples.
class Exposition {
 public:
  void Add(const std::string& name, std::string_view type, std::string_view help, const PromLabels& labels,
           uint64_t value) {
    auto [it, fresh] = index_.try_emplace(name, families_.size());
    if (fresh) families_.push_back({name, std::string(type), std::string(help), {}});
    std::string sample = name;
    if (!labels.empty()) {
      sample += '{';
      for (size_t i = 0; i < labels.size(); ++i)
        sample += fmt::format("{}{}=\"{}\"", i ? "," : "", labels[i].first, Escape(labels[i].second));
      sample += '}';
    }
    families_[it->second].samples.push_back(fmt::format("{} {}", sample, value));
  }
  void Gauge(const std::string& name, std::string_view help, const PromLabels& labels, uint64_t value) {
    Add(name, "gauge", help, labels, value);
  }
  void Counter(const std::string& name, std::string_view help, const PromLabels& labels, uint64_t value) {
    Add(name, "counter", help, labels, value);
  }
  std::string Text() const {
    std::string out;
    for (const Family& f : families_) {
      out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", f.name, f.help, f.name, f.type);
      for (const std::string& s : f.samples) out += s + '\n';
    }
    return out;
  }

 private:
  struct Family {
    std::string name, type, help;
    std::vector<std::string> samples;
  };
  std::vector<Family> families_;
  std::map<std::string, size_t> index_;
};

std::string Opt(const std::optional<std::string>& s) { return s ? *s : ""; }

void AddLive(Exposition& e, const ExportGpu& g) {
  const PromLabels gpu{{"gpu", g.gpu.id}};
  const detect::LiveFacts& live = *g.live;
  e.Gauge("rocmtune_gpu_live_facts_known",
          "Whether rocm-smi-lib answered for the GPU (1), or nothing live is known about it (0)", gpu,
          live.unavailable.empty() ? 1 : 0);
  if (!live.unavailable.empty()) return;
  for (const sys::SmiNamedEcc& ecc : live.smi.ecc) {
    if (!ecc.count.value) continue;
    e.Counter("rocmtune_gpu_ecc_errors_total", "ECC errors rocm-smi-lib counts since the driver loaded, per block",
              {{"gpu", g.gpu.id}, {"block", ecc.block}, {"type", "correctable"}}, ecc.count.value->correctable);
    e.Counter("rocmtune_gpu_ecc_errors_total", "ECC errors rocm-smi-lib counts since the driver loaded, per block",
              {{"gpu", g.gpu.id}, {"block", ecc.block}, {"type", "uncorrectable"}}, ecc.count.value->uncorrectable);
  }
  if (live.smi.pcie.value) {
    if (auto link = detect::LinkOf(live.smi.pcie)) {
      e.Gauge("rocmtune_gpu_pcie_link_transfers_per_second", "The PCIe link's transfer rate now (transfers/s)", gpu,
              link->rate);
      e.Gauge("rocmtune_gpu_pcie_link_max_transfers_per_second",
              "The fastest PCIe transfer rate the GPU's DPM levels offer (transfers/s)", gpu, link->max_rate);
      e.Gauge("rocmtune_gpu_pcie_link_lanes", "The PCIe link's width now (lanes)", gpu, link->lanes);
      e.Gauge("rocmtune_gpu_pcie_link_max_lanes", "The widest PCIe link the GPU's DPM levels offer (lanes)", gpu,
              link->max_lanes);
    }
  }
  if (live.smi.replay_count.value)
    e.Counter("rocmtune_gpu_pcie_replays_total", "PCIe replays (NAKs, retransmissions) since the driver loaded", gpu,
              *live.smi.replay_count.value);
  if (live.smi.throttle_status.value)
    e.Gauge("rocmtune_gpu_throttling", "Whether the GPU's power management firmware reports throttling (1)", gpu,
            *live.smi.throttle_status.value != 0 ? 1 : 0);
}

}  // namespace

std::string PrometheusText(const ExportReport& report) {
  const diagnose::Assessment& a = report.assessment;
  Exposition e;
  e.Gauge("rocmtune_info", "rocmtune's version; always 1", {{"version", report.version}}, 1);
  e.Gauge("rocmtune_rocm_info", "The installed ROCm release (empty: none found); always 1",
          {{"version", Opt(a.inventory.system.rocm_version)}}, 1);
  e.Gauge("rocmtune_gpus", "AMD GPUs rocmtune found", {}, report.gpus.size());
  for (const ExportGpu& g : report.gpus)
    e.Gauge("rocmtune_gpu_info", "An AMD GPU: its PCI address, card, gfx target, family and name; always 1",
            {{"gpu", g.gpu.id},
             {"card", Opt(g.gpu.card)},
             {"gfx_target", Opt(g.gpu.gfx_target)},
             {"family", g.gpu.family ? std::string(knowledge::FamilyName(*g.gpu.family)) : ""},
             {"name", g.gpu.marketing_name}},
            1);
  for (const ExportGpu& g : report.gpus)
    e.Gauge("rocmtune_gpu_usable", "Whether ROCm programs can use the GPU at all (KFD lists it)", {{"gpu", g.gpu.id}},
            g.usable ? 1 : 0);
  for (const ExportGpu& g : report.gpus)
    e.Gauge("rocmtune_gpu_rocm_supported",
            "Whether the installed ROCm supports the GPU (0: it may carry no code for it)", {{"gpu", g.gpu.id}},
            g.supported ? 1 : 0);
  for (const ExportGpu& g : report.gpus)
    for (const std::string& w : ExportWorkloads())
      e.Gauge("rocmtune_gpu_compute_safe",
              "Whether a workload runs on the GPU without a known crash (check-compute --device GPU --workload W)",
              {{"gpu", g.gpu.id}, {"workload", w}}, g.safe.at(w) ? 1 : 0);
  for (const ExportGpu& g : report.gpus)
    for (const std::string& w : ExportWorkloads())
      e.Gauge("rocmtune_gpu_compute_state",
              "The GPU's compute verdict for a workload, as its state label (safe, unknown, unsupported, unsafe, "
              "unusable; check-compute --device GPU --workload W)",
              {{"gpu", g.gpu.id}, {"workload", w}, {"state", std::string(diagnose::StateName(g.state.at(w)))}}, 1);
  for (size_t i = 0; i < a.inventory.gpus.size() && i < a.memory.size(); ++i)
    if (const auto& bytes = a.memory[i].allocatable_bytes)
      e.Gauge("rocmtune_gpu_rocm_allocatable_bytes",
              "Memory ROCm programs can allocate on the GPU as KFD counts it: VRAM, and for an APU the least of "
              "GTT, TTM's pages_limit and KFD's system memory limit",
              {{"gpu", a.inventory.gpus[i].id}}, *bytes);
  for (const std::string& w : ExportWorkloads())
    e.Gauge("rocmtune_compute_safe", "Whether there is a GPU and a workload is safe on every one (check-compute)",
            {{"workload", w}}, report.safe.at(w) ? 1 : 0);
  for (const std::string& w : ExportWorkloads())
    e.Gauge("rocmtune_compute_state", "The machine's compute verdict for a workload: the worst GPU's state",
            {{"workload", w}, {"state", std::string(diagnose::StateName(report.state.at(w)))}}, 1);
  for (const std::string& s : ExportSeverities())
    e.Gauge("rocmtune_findings", "Findings of status and doctor, by severity", {{"severity", s}},
            report.findings.at(s));
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t> by_id;
  for (const detect::Finding& f : a.findings) ++by_id[{f.id, std::string(detect::SeverityName(f.severity)), f.gpu}];
  for (const auto& [key, n] : by_id)
    e.Gauge("rocmtune_finding", "Findings by id, severity and the GPU they concern (empty: the machine)",
            {{"id", std::get<0>(key)}, {"severity", std::get<1>(key)}, {"gpu", std::get<2>(key)}}, n);
  e.Gauge("rocmtune_profile_info", "The active profile (empty: none); always 1", {{"profile", a.active_profile}}, 1);
  e.Gauge("rocmtune_reboot_pending", "Whether a configured setting takes effect only after a reboot", {},
          report.reboot_pending ? 1 : 0);
  e.Gauge("rocmtune_journal_readable",
          "Whether the export could read rocmtune's journal (0: the journal's values below are left out)", {},
          report.journal_known ? 1 : 0);
  if (report.journal_known) {
    e.Gauge("rocmtune_in_effect", "Whether verify finds what rocmtune configured in effect (no difference)", {},
            report.verify->ok() ? 1 : 0);
    std::map<DifferenceKind, uint64_t> kinds;
    for (const Difference& d : report.verify->differences) ++kinds[d.kind];
    for (const DifferenceKindRow& k : DifferenceKinds())
      e.Gauge("rocmtune_verify_differences", "Differences verify reports, by kind (drift: someone edited a file)",
              {{"kind", std::string(k.name)}}, kinds[k.kind]);
    for (const std::string& s : TransactionStates())
      e.Gauge("rocmtune_transactions", "Transactions in rocmtune's journal, by state", {{"state", s}},
              report.transactions.at(s));
    e.Gauge("rocmtune_transactions_interrupted", "Transactions begun and never finished (a killed writer)", {},
            report.interrupted);
    e.Gauge("rocmtune_last_transaction_failed", "Whether the newest transaction was rolled back", {},
            report.last_failed ? 1 : 0);
  }
  for (const std::string& s : TrialStates())
    e.Gauge("rocmtune_trial_state", "The --trial change's state (none: no trial); 1 for the current one",
            {{"state", s}}, report.trial == s ? 1 : 0);
  e.Gauge("rocmtune_trial_readable", "Whether the trial's state file could be read", {},
          report.trial_error.empty() ? 1 : 0);
  for (const ExportGpu& g : report.gpus)
    if (g.live) AddLive(e, g);
  if (report.faults_read) {
    for (const auto& [key, n] : report.faults)
      e.Counter(
          "rocmtune_gpu_faults_total",
          "GPU faults the system's log recorded in this boot, by card and kind (rocmtunectl faults; resets at boot)",
          {{"card", key.first}, {"kind", key.second}}, n);
    for (const auto& [card, usec] : report.last_fault_usec)
      e.Gauge("rocmtune_gpu_last_fault_timestamp_seconds", "When the card's newest GPU fault of this boot was logged",
              {{"card", card}}, usec / 1'000'000);
  }
  return e.Text();
}

}  // namespace rocmtune::api
