// `rocmtunectl set KEY=VALUE...` / `unset KEY...`: plan the knobs and change them for real
// (or only show the plan with --check).
#include <fmt/format.h>

#include "client/change.h"
#include "client/exit_codes.h"
#include "client/knob_context.h"
#include "client/verbs.h"
#include "journal/history.h"
#include "planner/planner.h"

namespace rocmtune::client {

std::optional<LoadedSystem> LoadSystem(const Context& ctx) {
  auto root = ctx.OpenRoot();
  if (!root) {
    fmt::print(stderr, "rocmtunectl: {}\n", root.error().message);
    return std::nullopt;
  }
  detect::Inventory inv = detect::Detect(*root);
  auto txns = journal::Load(*root);
  if (!txns) {
    fmt::print(stderr, "rocmtunectl: the journal cannot be read: {}\n", txns.error().message);
    return std::nullopt;
  }
  return LoadedSystem{std::move(*root), std::move(inv), std::move(*txns)};
}

namespace {

int Run(const Context& ctx, const plan::Request& request, plan::Intent intent, const ChangeOptions& options) {
  std::vector<plan::Message> recovery;
  auto system = LoadSystemForChange(ctx, options, recovery);
  if (!system) return kExitFailed;
  plan::Plan plan = plan::PlanRequest(system->Context(), request);
  plan.intent = std::move(intent);
  plan.warnings.insert(plan.warnings.begin(), recovery.begin(), recovery.end());
  AddDriftConflicts(system->root, system->journal, plan);
  return RunChange(ctx, std::move(plan), options);
}

}  // namespace

int RunSet(const Context& ctx, const std::vector<std::string>& assignments, const ChangeOptions& options) {
  plan::Request request;
  for (const std::string& text : assignments) {
    auto a = knobs::ParseAssignment(text);
    if (!a) {
      fmt::print(stderr, "rocmtunectl: {}\n", a.error().message);
      return kExitUsage;
    }
    request.set.push_back(std::move(*a));
  }
  return Run(ctx, request, {"set", "", assignments, "", {}}, options);
}

int RunUnset(const Context& ctx, const std::vector<std::string>& keys, const ChangeOptions& options) {
  plan::Request request;
  for (const std::string& text : keys) {
    auto k = knobs::ParseKnobKey(text);
    if (!k) {
      fmt::print(stderr, "rocmtunectl: {}\n", k.error().message);
      return kExitUsage;
    }
    request.unset.push_back(std::move(*k));
  }
  return Run(ctx, request, {"unset", "", keys, "", {}}, options);
}

}  // namespace rocmtune::client
