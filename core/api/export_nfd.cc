// The export as node-feature-discovery labels: a `features.d` file of the `local` source
// (NFD docs/usage/customization-guide.md, "Feature files"): `# +expiry-time=` first, then one
// `namespace/name=value` a line. Node labels, so a machine with several GPUs is summed up: counts,
// "every GPU" verdicts, and the target or family only when all GPUs share one.
#include <cctype>
#include <map>
#include <set>
#include <string>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "api/export.h"
#include "knowledge/family.h"
#include "knowledge/known_issues.h"

namespace rocmtune::api {

namespace {

bool Alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool LabelChar(char c) { return Alnum(c) || c == '-' || c == '_' || c == '.'; }

class NfdLabels {
 public:
  explicit NfdLabels(std::string ns) : ns_(std::move(ns)) {}
  // A label whose value cannot be made valid is left out.
  void Add(const std::string& name, std::string_view value) {
    if (!IsLabelName(name)) return;
    auto v = LabelValue(value);
    if (v) lines_ += fmt::format("{}/{}={}\n", ns_, name, *v);
  }
  void Add(const std::string& name, bool value) { Add(name, std::string_view(value ? "true" : "false")); }
  void Add(const std::string& name, size_t value) { Add(name, std::to_string(value)); }
  const std::string& Text() const { return lines_; }

 private:
  std::string ns_;
  std::string lines_;
};

}  // namespace

std::optional<std::string> LabelValue(std::string_view text) {
  std::string out;
  for (char c : text) out += LabelChar(c) ? c : '-';
  size_t b = 0;
  while (b < out.size() && !Alnum(out[b])) ++b;
  out.erase(0, b);
  if (out.size() > 63) out.resize(63);
  while (!out.empty() && !Alnum(out.back())) out.pop_back();
  if (out.empty() && !text.empty()) return std::nullopt;
  return out;
}

std::string NfdText(const ExportReport& report, const NfdOptions& options, std::chrono::system_clock::time_point now) {
  const diagnose::Assessment& a = report.assessment;
  NfdLabels l(options.label_namespace);
  l.Add("version", report.version);
  l.Add("rocm", a.inventory.system.rocm_version.value_or("none"));
  size_t usable = 0;
  std::map<std::string, size_t> targets;
  std::set<std::string> families;
  for (const ExportGpu& g : report.gpus) {
    usable += g.usable ? 1 : 0;
    ++targets[g.gpu.gfx_target.value_or("unknown")];
    families.insert(g.gpu.family ? std::string(knowledge::FamilyName(*g.gpu.family)) : "unknown");
  }
  l.Add("gpus", report.gpus.size());
  l.Add("gpus-usable", usable);
  for (const std::string& w : ExportWorkloads()) {
    size_t safe = 0;
    for (const ExportGpu& g : report.gpus) safe += g.safe.at(w) ? 1 : 0;
    std::string suffix = w == knowledge::kWorkloadAny ? "" : "." + w;
    l.Add("compute-safe" + suffix, report.safe.at(w));
    l.Add("compute-state" + suffix, std::string(diagnose::StateName(report.state.at(w))));
    l.Add("gpus-safe" + suffix, safe);
  }
  if (targets.size() == 1) l.Add("gfx-target", targets.begin()->first);
  for (const auto& [target, n] : targets)
    if (target != "unknown") l.Add(target, n);
  if (families.size() == 1) l.Add("family", *families.begin());
  for (const std::string& s : ExportSeverities()) l.Add("findings." + s, report.findings.at(s));
  l.Add("profile", a.active_profile.empty() ? std::string("none") : a.active_profile);
  l.Add("reboot-pending", report.reboot_pending);
  if (report.journal_known) {
    l.Add("in-effect", report.verify->ok());
    size_t drift = 0;
    for (const Difference& d : report.verify->differences) drift += Row(d.kind).changed_by_others ? 1 : 0;
    l.Add("drift", drift > 0);
    l.Add("interrupted", report.interrupted > 0);
    l.Add("last-transaction-failed", report.last_failed);
  }
  l.Add("trial", report.trial_error.empty() ? report.trial : std::string("unreadable"));
  auto expiry = std::chrono::floor<std::chrono::seconds>(now + options.expiry);
  return fmt::format(
      "# rocmtune {} (rocmtunectl export --format nfd); rewritten, never edit\n"
      "# +expiry-time={:%Y-%m-%dT%H:%M:%SZ}\n{}",
      report.version, expiry, l.Text());
}

}  // namespace rocmtune::api
