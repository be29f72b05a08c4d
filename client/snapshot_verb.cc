// `rocmtunectl snapshot DIR` / `snapshot --output FILE.tar.gz`: writes a world of this machine
// for bug reports.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/snapshot.h"
#include "api/status_json.h"
#include "client/exit_codes.h"
#include "client/verbs.h"
#include "util/json_text.h"

namespace rocmtune::client {

void AddSnapshotOptions(CLI::App& sub, Args& args) {
  CLI::Option* dir = sub.get_option("dir");
  sub.add_option("--output,-o", args.output, "Write the world as one tar.gz archive to FILE (a new file)")
      ->option_text("FILE")
      ->excludes(dir);
  // Exactly one of DIR and --output: CLI11 refuses both (excludes), this refuses neither.
  sub.callback([&sub, &args] {
    if (args.output.empty() && sub.count("dir") == 0) throw CLI::RequiredError("DIR or --output FILE");
  });
}

int RunSnapshot(const Context& ctx, const Args& args) {
  auto root = ctx.OpenRoot();
  if (!root) return Failed(ctx, root.error(), kExitFailed);
  bool archive = !args.output.empty();
  auto report = archive ? api::SnapshotArchive(*root, args.output) : api::Snapshot(*root, args.operands.at(0));
  // Only an unusable DIR or FILE is the caller's mistake; a path that is missing is not.
  if (!report)
    return Failed(ctx, report.error(), report.error().code == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailed);
  if (ctx.json) {
    fmt::print("{}\n", JsonText(api::SnapshotJson(*report)));
    return kExitOk;
  }
  fmt::print("Wrote {} files and {} links to {} ({} unreadable, skipped).\n", report->stats.files,
             report->stats.symlinks, report->path, report->stats.skipped);
  // Run by a user, the journal (0640 root:rocmtune) and root-only attributes cannot be read:
  // the snapshot works without them and says which they are.
  if (!report->stats.left_out.empty()) {
    fmt::print("Left out, not readable by this user (run as root to include them):\n");
    for (const std::string& p : report->stats.left_out) fmt::print("  /{}\n", p);
    if (report->stats.skipped > report->stats.left_out.size())
      fmt::print("  ... and {} more\n", report->stats.skipped - report->stats.left_out.size());
  }
  fmt::print(
      "It holds the kernel command line, module parameters, boot configuration, GPU sysfs/KFD\n"
      "attributes, rocmtune's configuration and journal and `status --json` ({}); serial numbers\n"
      "are left out, MAC addresses, the host name and user names redacted.\n",
      api::kStatusDocument);
  if (archive)
    fmt::print("Check: mkdir DIR && tar xzf {} -C DIR && rocmtunectl --root DIR/{} status\n", report->path,
               report->top);
  else fmt::print("Check: rocmtunectl --root {} status\n", report->path);
  return kExitOk;
}

}  // namespace rocmtune::client
