// `rocmtunectl faults [--boot N] [--since TIME] [--json]`: the GPU faults the system's log
// recorded (api/faults.h), oldest first, each with its process, user, GPU and likely cause. Read
// with the caller's own rights: a user sees what the journal lets that user read. Exit 1 when it
// lists a fault, 0 when none (node-problem-detector's temporary rule, examples/).
#include <chrono>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/faults.h"
#include "client/document.h"
#include "client/exit_codes.h"
#include "client/fault_text.h"
#include "client/verbs.h"

namespace rocmtune::client {

void AddFaultsOptions(CLI::App& sub, Args& args) {
  sub.add_option("--boot", args.log_boot, "Only this boot's faults: 0 this boot, -1 the one before (journalctl -b)")
      ->option_text("N");
  sub.add_option("--since", args.since,
                 "Only faults from then on: @SECONDS, 2026-11-29[T14:03:00] (UTC), 30min, 2h, 3d")
      ->option_text("TIME");
}

int RunFaults(const Context& ctx, const Args& args) {
  api::FaultsOptions options;
  options.boot = args.log_boot;
  if (!args.since.empty()) {
    const auto now =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch());
    auto since = api::ParseSince(args.since, static_cast<uint64_t>(now.count()));
    if (!since) return Failed(ctx, since.error(), kExitUsage);
    options.since_usec = *since;
  }
  auto root = ctx.OpenRoot();
  if (!root) return Failed(ctx, root.error(), ExitFor(root.error()));
  auto report = api::Faults(*root, options);
  if (!report) return Failed(ctx, report.error(), ExitFor(report.error()));
  const Doc doc = api::FaultsJson(*report);
  // As node-problem-detector's custom plugins answer: 1 (NonOK) when a fault is listed.
  const int exit_code = report->records.empty() ? kExitOk : kExitFailed;
  if (ctx.json) {
    PrintJson(doc);
    return exit_code;
  }
  if (Field(doc, "source") == "none") {
    fmt::print("No system log was read: {}\n", Field(doc, "why_none", "unknown"));
    return kExitOk;
  }
  const Doc& faults = doc["faults"];
  if (faults.empty()) fmt::print("No GPU faults in the system log ({}).\n", Field(doc, "source"));
  for (const Doc& r : faults) {
    PrintFaultRecord(r, true);
    fmt::print("\n");
  }
  if (DocTrue(doc, "truncated")) fmt::print("(the log holds more; only the newest entries were read)\n");
  return exit_code;
}

}  // namespace rocmtune::client
