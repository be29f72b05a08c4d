// `rocmtunectl set KEY=VALUE... --check` / `unset KEY... --check`: the plan, without writing.
#include <fmt/format.h>

#include "api/result_json.h"
#include "api/status_json.h"
#include "client/exit_codes.h"
#include "client/knob_context.h"
#include "client/verbs.h"
#include "plan/planner.h"
#include "plan/unified_diff.h"

namespace rocmtune::client {

std::optional<LoadedSystem> LoadSystem(const std::string& root_path) {
  auto root = sys::Root::Open(root_path);
  if (!root) {
    fmt::print(stderr, "rocmtunectl: {}\n", root.error().message);
    return std::nullopt;
  }
  detect::Inventory inv = detect::Detect(*root);
  return LoadedSystem{std::move(*root), std::move(inv)};
}

namespace {

void PrintPlan(const plan::Plan& plan) {
  for (const auto& r : plan.refused)
    fmt::print("refused: {}{}\n", r.message, r.source.empty() ? "" : fmt::format("\n         source: {}", r.source));
  for (const auto& w : plan.warnings)
    fmt::print("warning: {}{}\n", w.message, w.source.empty() ? "" : fmt::format("\n         source: {}", w.source));
  if (!plan.refused.empty()) {
    fmt::print("Nothing would be changed.\n");
    return;
  }
  if (plan.ops.empty()) {
    fmt::print("Already as requested: nothing to change.\n");
    return;
  }
  for (const plan::Op& op : plan.ops) {
    switch (op.kind) {
      case plan::OpKind::kWriteFile:
      case plan::OpKind::kRemoveFile:
        fmt::print("\n{} /{} ({})\n{}", op.kind == plan::OpKind::kWriteFile ? "write" : "remove", op.path, op.reason,
                   plan::UnifiedDiff(op.path, op.before, op.after));
        break;
      case plan::OpKind::kWriteSysfs:
        fmt::print("\nsysfs /{} <- {} ({})\n", op.path, op.after.value_or(""), op.reason);
        break;
      case plan::OpKind::kRegenerate: {
        std::string cmd;
        for (const auto& a : op.argv) cmd += (cmd.empty() ? "" : " ") + a;
        fmt::print("\nregenerate {}: {} ({})\n", op.path, cmd, op.reason);
        break;
      }
    }
  }
  fmt::print("\ninitramfs: {}, boot loader: {}, reboot required: {}\n", plan::RegenName(plan.initramfs),
             plan::RegenName(plan.bootloader), plan.reboot_required ? "yes" : "no");
}

int Run(const Context& ctx, const plan::Request& request, bool check) {
  auto system = LoadSystem(ctx.root);
  if (!system) return kExitFailed;
  plan::Plan plan = plan::PlanRequest(system->Context(), request);
  if (ctx.json) {
    fmt::print("{}\n", api::Serialize(api::ResultJson(plan, true, std::nullopt)));
  } else {
    PrintPlan(plan);
  }
  if (!plan.refused.empty()) return kExitRefused;
  if (!check) {
    fmt::print(stderr, "rocmtunectl: applying changes needs rocmtune-helper, which is not part of this build yet; "
                       "nothing was written (use --check to only see the plan)\n");
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace

int RunSet(const Context& ctx, const std::vector<std::string>& assignments, bool check) {
  plan::Request request;
  for (const std::string& text : assignments) {
    auto a = knobs::ParseAssignment(text);
    if (!a) {
      fmt::print(stderr, "rocmtunectl: {}\n", a.error().message);
      return kExitUsage;
    }
    request.set.push_back(std::move(*a));
  }
  return Run(ctx, request, check);
}

int RunUnset(const Context& ctx, const std::vector<std::string>& keys, bool check) {
  plan::Request request;
  for (const std::string& text : keys) {
    auto k = knobs::ParseKnobKey(text);
    if (!k) {
      fmt::print(stderr, "rocmtunectl: {}\n", k.error().message);
      return kExitUsage;
    }
    request.unset.push_back(std::move(*k));
  }
  return Run(ctx, request, check);
}

}  // namespace rocmtune::client
