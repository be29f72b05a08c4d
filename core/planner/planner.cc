#include "planner/planner.h"

#include <fmt/format.h>

#include "knobs/registry.h"

namespace rocmtune::plan {

Plan PlanRequest(const knobs::KnobContext& request_ctx, const Request& request) {
  knobs::KnobContext ctx = request_ctx;  // the caches come along; the request's opt-in is added
  ctx.admin_lines = request.admin_lines;
  Plan plan;
  plan.root = ctx.root.id();
  const auto& registry = knobs::Registry::Builtin();
  for (const auto& a : request.set) {
    const knobs::Backend* b = registry.For(a.key);
    if (!b) plan.refused.push_back({a.key.Text(), fmt::format("no backend manages {}", a.key.Text()), ""});
    else b->Validate(ctx, a.key, a.value, plan);
  }
  for (const auto& k : request.unset) {
    const knobs::Backend* b = registry.For(k);
    if (!b) plan.refused.push_back({k.Text(), fmt::format("no backend manages {}", k.Text()), ""});
    else b->Validate(ctx, k, std::nullopt, plan);
  }
  // --admin-lines edits environment files and modprobe.d only; a command-line token of the
  // admin's stays, and the caller is told so rather than left to believe it went.
  if (request.admin_lines) {
    std::vector<knobs::KnobKey> keys = request.unset;
    for (const auto& a : request.set) keys.push_back(a.key);
    for (const auto& k : keys)
      if (k.kind != knobs::KnobKind::kEnv && k.kind != knobs::KnobKind::kModuleParam)
        plan.warnings.push_back({k.Text(),
                                 fmt::format("--admin-lines comments out env.* and modprobe.d lines only: an admin's "
                                             "setting of {} stays where it is",
                                             k.Text()),
                                 ""});
  }
  // The same key twice in one request is ambiguous.
  for (size_t i = 0; i < request.set.size(); ++i)
    for (size_t j = i + 1; j < request.set.size(); ++j)
      if (request.set[i].key == request.set[j].key)
        plan.refused.push_back(
            {request.set[i].key.Text(), fmt::format("{} is given twice", request.set[i].key.Text()), ""});
  if (!plan.refused.empty()) return plan;

  for (const auto& backend : registry.backends()) {
    std::vector<knobs::Assignment> set;
    std::vector<knobs::KnobKey> unset;
    for (const auto& a : request.set)
      if (backend->Handles(a.key)) set.push_back(a);
    for (const auto& k : request.unset)
      if (backend->Handles(k)) unset.push_back(k);
    if (!set.empty() || !unset.empty()) backend->PlanChanges(ctx, set, unset, plan);
  }
  if (!plan.refused.empty()) plan.ops.clear();
  return plan;
}

Request ResetRequest(const knobs::KnobContext& ctx) {
  Request request;
  for (const auto& backend : knobs::Registry::Builtin().backends())
    for (knobs::KnobKey& key : backend->OwnedKeys(ctx)) request.unset.push_back(std::move(key));
  return request;
}

}  // namespace rocmtune::plan
