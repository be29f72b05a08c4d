// `rocmtunectl snapshot DIR`: writes a world of this machine for bug reports.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "client/exit_codes.h"
#include "client/verbs.h"
#include "snapshot/snapshot.h"
#include "util/json_text.h"

namespace rocmtune::client {

int RunSnapshot(const Context& ctx, const std::string& out_dir) {
  auto root = ctx.OpenRoot();
  if (!root) {
    fmt::print(stderr, "rocmtunectl: {}\n", root.error().message);
    return kExitFailed;
  }
  auto stats = snapshot::WriteSnapshot(*root, out_dir);
  if (!stats) {
    fmt::print(stderr, "rocmtunectl: snapshot: {}\n", stats.error().message);
    return stats.error().code == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailed;
  }
  if (ctx.json) {
    nlohmann::ordered_json doc = {{"schema", "rocmtune.snapshot.v1"},
                                  {"path", out_dir},
                                  {"files", stats->files},
                                  {"symlinks", stats->symlinks},
                                  {"skipped", stats->skipped}};
    fmt::print("{}\n", JsonText(doc));
  } else {
    fmt::print("Wrote {} files and {} links to {} ({} unreadable, skipped).\n", stats->files, stats->symlinks,
               out_dir, stats->skipped);
    fmt::print("It holds the kernel command line, module parameters, boot configuration and GPU sysfs/KFD\n"
               "attributes; serial numbers are left out. Check: rocmtunectl --root {} status\n",
               out_dir);
  }
  return kExitOk;
}

}  // namespace rocmtune::client
