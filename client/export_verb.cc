// `rocmtunectl export [--format prometheus|nfd|json]`: the one verdict and rocmtune's state in
// the shapes fleet engines read (api/export.h), printed on stdout; `--write` puts each format
// /etc/rocmtune/export.toml enables where its engine reads it (node_exporter's textfile
// directory, NFD's features.d), through the helper (api/publish.h). Any user may print; the
// journal's values need its group (0640 root:rocmtune), else they are left out and said so.
#include <chrono>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/export.h"
#include "client/document.h"
#include "client/exit_codes.h"
#include "client/verbs.h"

namespace rocmtune::client {

void AddExportOptions(CLI::App& sub, Args& args) {
  sub.add_option("--format", args.format,
                 "prometheus (node_exporter's textfile format), nfd (features.d labels) or json")
      ->check(CLI::IsMember({"prometheus", "nfd", "json"}))
      ->option_text("F");
  sub.add_flag("--no-live", args.no_live, "Do not ask rocm-smi-lib for live facts (ECC, PCIe, throttling)");
}

int RunExport(const Context& ctx, const Args& args) {
  std::string format = args.format.empty() ? (ctx.json ? "json" : "prometheus") : args.format;
  if (ctx.json && format != "json") {
    PrintError(fmt::format("--json and --format {} ask for two formats", format));
    return kExitUsage;
  }
  auto root = ctx.OpenRoot();
  if (!root) return Failed(ctx, root.error(), ExitFor(root.error()));
  api::ExportOptions options;
  options.version = ROCMTUNE_VERSION;
  options.live_facts = !args.no_live;
  auto report = api::Export(*root, detect::Detect(*root), options);
  if (!report) return Failed(ctx, report.error(), ExitFor(report.error()));
  if (format == "json") PrintJson(api::ExportJson(*report));
  else if (format == "nfd") fmt::print("{}", api::NfdText(*report, {}, std::chrono::system_clock::now()));
  else fmt::print("{}", api::PrometheusText(*report));
  return kExitOk;
}

}  // namespace rocmtune::client
