// `export`: the one assessment (diagnose/assess.h), each GPU's compute verdict per workload and
// rocmtune's state — active profile, pending reboot, what `verify` finds, the journal's
// transactions, a trial — in the shapes fleet engines read:
//   - Prometheus' text exposition format, for node_exporter's textfile collector (`*.prom`);
//   - node-feature-discovery's `features.d` labels (the `local` source), for Kubernetes;
//   - JSON, rocmtune.export.v1.
// Nothing here decides: every value is what status, check-compute and verify report for the same
// machine (the export describes the machine, as rocmtuned does: no caller's environment).
// The writers of these files (rocmtunectl export --write, rocmtuned) are in api/publish.h.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "api/faults.h"
#include "api/verify.h"
#include "detect/inventory.h"
#include "detect/live_facts.h"
#include "diagnose/assess.h"
#include "diagnose/verdict.h"
#include "plan/publish.h"
#include "plan/trial_state.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::api {

inline constexpr const char* kExportSchema = "rocmtune.export.v1";
// The workloads every export answers for: "any" first, then knowledge::kWorkloads.
const std::vector<std::string>& ExportWorkloads();
// Severities, and journal transaction states, in the order they are exported.
const std::vector<std::string>& ExportSeverities();
const std::vector<std::string>& TransactionStates();
// Trial states exported as a state set: "none" and plan::TrialPhaseName of each phase.
const std::vector<std::string>& TrialStates();

struct ExportOptions {
  std::string version;  // rocmtune's own (the front end's ROCMTUNE_VERSION)
  // Ask rocm-smi-lib on the live root (a child process, up to its timeout).
  bool live_facts = true;
  const std::vector<detect::LiveFacts>* known_live = nullptr;  // rocmtuned's cache
  // How this boot's GPU faults are read (api/faults.h); empty: not read, no fault metrics. The
  // export carries counts per card and kind and times only: no process, pid or user.
  LogReader read_faults;
};

struct ExportGpu {
  detect::Gpu gpu;
  bool usable = false;                           // ROCm programs can use it at all
  bool supported = true;                         // the installed ROCm supports it (no "unsupported" note)
  std::map<std::string, bool> safe;              // per ExportWorkloads()
  std::map<std::string, diagnose::State> state;  // per ExportWorkloads(): diagnose/verdict.h
  bool visible = true;
  std::optional<detect::LiveFacts> live;  // only on the live root
};

struct ExportReport {
  std::string version;
  std::string time;  // RFC 3339 UTC, when the report was made
  diagnose::Assessment assessment;
  std::vector<ExportGpu> gpus;                   // the inventory's order
  std::map<std::string, bool> safe;              // per workload: there is a GPU and each one is safe
  std::map<std::string, diagnose::State> state;  // per workload: the worst GPU's state
  bool reboot_pending = false;
  // The journal and what comes from it; unknown when this user may not read it.
  bool journal_known = true;
  std::string journal_note;
  std::optional<VerifyReport> verify;
  std::map<std::string, size_t> transactions;  // by TransactionStates()
  size_t interrupted = 0;                      // begun and never finished (not the running one)
  bool last_failed = false;                    // the newest transaction was rolled back
  std::string last_failure;                    // its reason
  // The trial's state ("none" without one); trial_error when its file cannot be read.
  std::string trial = "none";
  std::string trial_error;
  // Counts of findings by severity name (every severity present).
  std::map<std::string, size_t> findings;
  // This boot's GPU faults, when read (ExportOptions::read_faults): per card (the GPU's card, or
  // "unknown" for a fault of no GPU here) and faults::FaultKindName, and the newest one's time.
  bool faults_read = false;
  std::map<std::pair<std::string, std::string>, uint64_t> faults;
  std::map<std::string, uint64_t> last_fault_usec;
};

// Fails as Status does: when the root, or its sys/ or proc/, cannot be read.
Result<ExportReport> Export(const sys::Root& root, const detect::Inventory& inventory, const ExportOptions& options);

// The rocmtune.export.v1 document.
nlohmann::ordered_json ExportJson(const ExportReport& report);

// Prometheus text exposition format 0.0.4: every family with HELP and TYPE, `rocmtune_` names in
// base units, `_info` series of value 1, counters ending `_total`, no timestamps (node_exporter's
// textfile collector refuses them). Labels are bounded: GPU ids, finding ids, fixed sets.
std::string PrometheusText(const ExportReport& report);

struct NfdOptions {
  // The label namespace: rocmtune's own, as its bus name org.rocmtune1 claims rocmtune.org.
  std::string label_namespace = "rocmtune.org";
  // How long the labels hold when nothing rewrites them (# +expiry-time): a dead node's lapse.
  std::chrono::seconds expiry{std::chrono::minutes(10)};
};

// node-feature-discovery `features.d` lines: `# +expiry-time=<RFC 3339>`, then `NS/name=value`,
// every name and value within Kubernetes' label rules (a value that cannot be made valid is left
// out, never written broken).
std::string NfdText(const ExportReport& report, const NfdOptions& options, std::chrono::system_clock::time_point now);

// The export in `format` (plan/export_format.h), rendered by the format's renderer
// (api/export_render.cc): the text `rocmtunectl export --format` prints and the helper publishes.
// `config` gives the published formats' options (NFD's namespace and expiry), `now` the time.
std::string RenderExport(plan::ExportFormat format, const ExportReport& report, const plan::ExportConfig& config,
                         std::chrono::system_clock::time_point now);
// Whether `format` has a renderer: every row of plan::ExportFormats() must (ExportRender test).
bool HasRenderer(plan::ExportFormat format);

using plan::IsLabelName;
using plan::IsLabelValue;
// `text` made a label value: characters outside the rules become '-', the ends trimmed to an
// alphanumeric, cut to 63; nullopt when nothing valid is left of a non-empty text.
std::optional<std::string> LabelValue(std::string_view text);

}  // namespace rocmtune::api
