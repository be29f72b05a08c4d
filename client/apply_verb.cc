// `rocmtunectl apply PROFILE [--with ID] [--check] [--diff] [--force]`: a profile's desired
// state planned as knobs, replacing the active profile, changed through the helper.
#include <fmt/format.h>

#include "client/change.h"
#include "client/exit_codes.h"
#include "client/knob_context.h"
#include "client/verbs.h"
#include "journal/history.h"
#include "planner/planner.h"
#include "profiles/apply_request.h"
#include "profiles/desired.h"
#include "profiles/match.h"
#include "profiles/profile_store.h"

namespace rocmtune::client {

int RunApply(const Context& ctx, const std::string& name, const std::vector<std::string>& with_optional,
             const ChangeOptions& options) {
  std::vector<plan::Message> recovery;
  auto system = LoadSystemForChange(ctx, options, recovery);
  if (!system) return kExitFailed;
  profiles::ProfileStore store = profiles::ProfileStore::Load(system->root);
  if (!store.Find(name)) {
    fmt::print(stderr, "rocmtunectl: no profile '{}' (see rocmtunectl profiles)\n", name);
    return kExitUsage;
  }
  plan::Plan refused;
  refused.intent = {"apply", name, {}, "", {}};
  auto resolved = store.Resolve(name);
  if (!resolved) {
    // A broken profile (bad TOML, an unknown key, an include cycle) is refused as a whole.
    refused.refused.push_back({"", resolved.error().message, ""});
    return RunChange(ctx, std::move(refused), options);
  }
  if (auto ok = profiles::CheckWithOptional(*resolved, with_optional); !ok) {
    fmt::print(stderr, "rocmtunectl: {}\n", ok.error().message);
    return kExitUsage;
  }

  std::vector<plan::Message> warnings = recovery;
  profiles::MatchResult match = profiles::MatchProfile(*resolved, system->inventory);
  if (!match.matches) {
    std::string why = fmt::format("profile {} does not fit this machine: {}", name, match.reason);
    if (!options.force) {
      refused.refused.push_back({"", why + " (--force applies it anyway)", ""});
      return RunChange(ctx, std::move(refused), options);
    }
    warnings.push_back({"", why + "; applied because of --force", ""});
  }

  auto desired = profiles::DesiredState(*resolved, system->root, system->inventory, with_optional);
  if (!desired) {
    fmt::print(stderr, "rocmtunectl: {}\n", desired.error().message);
    return kExitUsage;
  }
  auto kctx = system->Context();
  profiles::ApplyRequest apply =
      profiles::BuildApplyRequest(kctx, name, *desired, journal::ActiveApply(system->journal));
  plan::Plan plan = plan::PlanRequest(kctx, apply.request);
  plan.intent = std::move(apply.intent);
  plan.intent.with = with_optional;
  if (!desired->refused.empty()) {
    plan.refused.insert(plan.refused.end(), desired->refused.begin(), desired->refused.end());
    plan.ops.clear();
  }
  // What the profile replaces travels with the plan's warnings; its notes are the plan's notes.
  plan.warnings.insert(plan.warnings.begin(), warnings.begin(), warnings.end());
  plan.warnings.insert(plan.warnings.end(), apply.replaced.begin(), apply.replaced.end());
  plan.notes = desired->notes;
  if (!ctx.json)
    for (const std::string& s : desired->skipped) fmt::print("skipped: {}\n", s);
  AddDriftConflicts(system->root, system->journal, plan);
  return RunChange(ctx, std::move(plan), options);
}

}  // namespace rocmtune::client
