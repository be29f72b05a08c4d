// `rocmtunectl reset --purge-plan DIR` (api/purge_plan.h): what the package's prerm runs on
// removal, so that purge, after the binaries are gone, can undo rocmtune's files.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "api/purge_plan.h"
#include "client/exit_codes.h"
#include "client/local_writer.h"
#include "client/verbs.h"

namespace rocmtune::client {

void AddResetOptions(CLI::App& sub, Args& args) {
  sub.add_option("--purge-plan", args.purge_plan,
                 "Plan the reset without writing it and leave the plan in DIR (a new or empty directory) for the "
                 "package's purge script")
      ->option_text("DIR");
}

int RunPurgePlan(const Context& ctx, const Args& args) {
  auto root = ctx.OpenRoot();
  if (!root) return Failed(ctx, root.error(), kExitFailed);
  LocalWriter writer(ctx);
  api::ChangeOptions options{.check = true, .force = false, .on_planned = nullptr, .on_event = nullptr};
  auto report = api::Reset(*root, options, writer);
  if (!report) return Failed(ctx, report.error(), ExitFor(report.error()));
  auto plan = api::MakePurgePlan(*root, *report);
  if (!plan) return Failed(ctx, plan.error(), kExitRefused);
  if (auto written = api::WritePurgePlan(*plan, args.purge_plan); !written)
    return Failed(ctx, written.error(), written.error().code == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailed);
  size_t steps = static_cast<size_t>(std::count(plan->text.begin(), plan->text.end(), '\n')) - 1;
  fmt::print("Wrote the purge plan ({} steps) to {}.\n", steps, args.purge_plan);
  for (const std::string& why : plan->left) fmt::print("  not in it: {}\n", why);
  return kExitOk;
}

}  // namespace rocmtune::client
