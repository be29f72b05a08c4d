// `rocmtunectl explain KEY`: what a knob is, its configured / running / effective value here,
// where it is set, whether it matters on each GPU, and why (source).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "api/status_json.h"
#include "client/exit_codes.h"
#include "client/knob_context.h"
#include "client/verbs.h"
#include "knobs/registry.h"

namespace rocmtune::client {

int RunExplain(const Context& ctx, const std::string& key_text) {
  auto key = knobs::ParseKnobKey(key_text);
  if (!key) {
    fmt::print(stderr, "rocmtunectl: {}\n", key.error().message);
    return kExitUsage;
  }
  auto system = LoadSystem(ctx);
  if (!system) return kExitFailed;
  knobs::KnobContext kctx = system->Context();
  const knobs::Backend* backend = knobs::Registry::Builtin().For(*key);
  plan::Plan probe;
  backend->Validate(kctx, *key, std::nullopt, probe);  // unknown names, suggestions
  if (!probe.refused.empty()) {
    fmt::print(stderr, "rocmtunectl: {}\n", probe.refused.front().message);
    return kExitRefused;
  }
  knobs::KnobState state = backend->Read(kctx, *key);
  std::vector<std::string> lines = backend->Describe(kctx, *key);
  if (ctx.json) {
    nlohmann::ordered_json doc = {
        {"schema", "rocmtune.explain.v1"},
        {"key", key->Text()},
        {"backend", backend->Name()},
        {"configured", state.configured ? nlohmann::ordered_json(*state.configured) : nullptr},
        {"configured_in", state.configured_in ? nlohmann::ordered_json(*state.configured_in) : nullptr},
        {"running", state.running ? nlohmann::ordered_json(*state.running) : nullptr},
        {"effective", state.effective ? nlohmann::ordered_json(*state.effective) : nullptr},
        {"owner", knobs::Name(state.owner)},
        {"pending_reboot", state.pending_reboot},
        {"notes", state.notes},
        {"about", lines},
    };
    fmt::print("{}\n", api::Serialize(doc));
    return kExitOk;
  }
  fmt::print("{} ({} backend)\n", key->Text(), backend->Name());
  for (const std::string& line : lines) fmt::print("  {}\n", line);
  fmt::print("\n  configured: {}{}\n", state.configured.value_or("(not set)"),
             state.configured_in ? fmt::format(" in /{}", *state.configured_in) : "");
  fmt::print("  running:    {}\n", state.running.value_or("unknown"));
  fmt::print("  effective:  {}\n", state.effective.value_or("unknown"));
  fmt::print("  owner:      {}{}\n", knobs::Name(state.owner), state.pending_reboot ? " (pending reboot)" : "");
  for (const std::string& n : state.notes) fmt::print("  note: {}\n", n);
  return kExitOk;
}

}  // namespace rocmtune::client
