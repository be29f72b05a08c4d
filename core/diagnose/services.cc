// The machine's ROCm services judged as their own programs (diagnose/checks.h, ServiceChecks): a
// service runs with its unit's environment, not a login shell's, so an override in
// /etc/systemd/system/ollama.service.d/*.conf (ollama's documented way to run on an unsupported
// Radeon) decides what ollama's ROCm does while every shell on the machine is fine. Each service
// gets the same assessment and verdict as check-compute --unit NAME; a GPU it cannot run on safely
// is one compute.service finding naming the service, the GPU, the state and the first reason.
#include <fmt/format.h>

#include "diagnose/checks.h"
#include "diagnose/verdict.h"
#include "knowledge/known_issues.h"

namespace rocmtune::diagnose {

std::vector<Finding> ServiceChecks(const sys::Root& root, const detect::Inventory& inventory) {
  std::vector<Finding> out;
  for (program::Context& context : program::ServiceContexts(root)) {
    AssessOptions options;
    options.live_facts = false;
    options.caller = false;
    options.program = std::move(context);
    const std::string name = options.program->name;
    auto a = Assess(root, inventory, options);
    if (!a) continue;  // what made the machine's own assessment fail is said there
    for (const detect::Gpu& g : a->inventory.gpus) {
      Verdict v = VerdictFor(*a, g, knowledge::kWorkloadAny);
      // A GPU no program can use (no KFD) is the machine's finding already, not the service's.
      if (v.safe() || v.state == State::kUnusable || !v.visible || v.reasons.empty()) continue;
      const Finding& why = *v.reasons.front();
      Finding f = MakeFinding(FindingName(FindingId::kComputeService),
                              v.state == State::kUnknown ? Severity::kInfo : Severity::kWarning, name,
                              fmt::format("{}: {} ({}) is {} for its programs: {}", name, g.id,
                                          g.gfx_target.value_or("gfx unknown"), StateName(v.state), why.what),
                              why.why);
      f.gpu = g.physical_id.empty() ? g.id : g.physical_id;
      // The fix is the service's: rocmtune's own knobs and profiles set a login shell's
      // environment, which the service does not read.
      f.fix.text = why.fix.text;
      f.fix.rocm = why.fix.rocm;
      f.fix.none = why.fix.none;
      if (!why.file.empty()) {
        const bool ends = f.fix.text.empty() || f.fix.text.ends_with('.');
        f.fix.text += fmt::format("{}Edit {}'s setting in /{} (systemctl edit {}), then restart it.",
                                  f.fix.text.empty() ? "" : (ends ? " " : ". "), name, why.file, name);
      }
      f.file = why.file;
      f.line = why.line;
      f.sources = why.sources;
      f.evidence = why.evidence;
      f.evidence.push_back(fmt::format("check-compute --unit {} says {}", name, StateName(v.state)));
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace rocmtune::diagnose
