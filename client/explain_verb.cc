// `rocmtunectl explain KEY`: what a knob is, its configured / running / effective value here,
// where it is set, whether it matters on each GPU, and why (source).
#include <fmt/format.h>

#include "api/explain.h"
#include "api/status_json.h"
#include "client/exit_codes.h"
#include "client/verbs.h"
#include "util/json_text.h"

namespace rocmtune::client {

int RunExplain(const Context& ctx, const Args& args) {
  auto system = ctx.LoadSystem();
  if (!system) return Failed(ctx, system.error(), kExitFailed);
  auto report = api::Explain(*system, args.operands.at(0));
  if (!report) return Failed(ctx, report.error(), ExitFor(report.error()));
  if (ctx.json) {
    fmt::print("{}\n", JsonText(api::ExplainJson(*report)));
    return kExitOk;
  }
  const knobs::KnobState& state = report->state;
  fmt::print("{} ({} backend)\n", report->key.Text(), report->backend);
  for (const std::string& line : report->about) fmt::print("  {}\n", line);
  fmt::print("\n  configured: {}{}\n", state.configured.value_or("(not set)"),
             state.configured_in ? fmt::format(" in /{}", *state.configured_in) : "");
  fmt::print("  running:    {}\n", state.running.value_or("unknown"));
  fmt::print("  effective:  {}\n", state.effective.value_or("unknown"));
  fmt::print("  owner:      {}{}\n", knobs::Name(state.owner), state.pending_reboot ? " (pending reboot)" : "");
  for (const std::string& n : state.notes) fmt::print("  note: {}\n", n);
  return kExitOk;
}

}  // namespace rocmtune::client
