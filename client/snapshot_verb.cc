// `rocmtunectl snapshot DIR`: writes a world of this machine for bug reports.
#include <fmt/format.h>

#include "api/snapshot.h"
#include "api/status_json.h"
#include "client/exit_codes.h"
#include "client/verbs.h"
#include "util/json_text.h"

namespace rocmtune::client {

int RunSnapshot(const Context& ctx, const Args& args) {
  auto root = ctx.OpenRoot();
  if (!root) return Failed(ctx, root.error(), kExitFailed);
  auto report = api::Snapshot(*root, args.operands.at(0));
  // Only an unusable DIR is the caller's mistake; a path that is missing is not.
  if (!report)
    return Failed(ctx, report.error(), report.error().code == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailed);
  if (ctx.json) {
    fmt::print("{}\n", JsonText(api::SnapshotJson(*report)));
    return kExitOk;
  }
  fmt::print("Wrote {} files and {} links to {} ({} unreadable, skipped).\n", report->stats.files,
             report->stats.symlinks, report->path, report->stats.skipped);
  fmt::print(
      "It holds the kernel command line, module parameters, boot configuration and GPU sysfs/KFD\n"
      "attributes; serial numbers are left out. Check: rocmtunectl --root {} status\n",
      report->path);
  return kExitOk;
}

}  // namespace rocmtune::client
