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
#include "api/publish.h"
#include "client/document.h"
#include "client/exit_codes.h"
#include "client/local_writer.h"
#include "client/verbs.h"
#include "plan/publish.h"

namespace rocmtune::client {

namespace {

// "prometheus (node_exporter's textfile format), nfd (features.d labels) or json": the table's rows.
std::string FormatHelp() {
  std::string out;
  auto rows = plan::ExportFormats();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) out += i + 1 == rows.size() ? " or " : ", ";
    out += rows[i].name;
    if (!rows[i].help.empty()) out += fmt::format(" ({})", rows[i].help);
  }
  return out;
}

std::vector<std::string> FormatNames() {
  std::vector<std::string> out;
  for (const plan::ExportFormatRow& r : plan::ExportFormats()) out.emplace_back(r.name);
  return out;
}

}  // namespace

void AddExportOptions(CLI::App& sub, Args& args) {
  sub.add_option("--format", args.format, FormatHelp())->check(CLI::IsMember(FormatNames()))->option_text("F");
  sub.add_flag("--no-live", args.no_live, "Do not ask rocm-smi-lib for live facts (ECC, PCIe, throttling)");
  sub.add_flag("--write", args.write,
               "Write each format /etc/rocmtune/export.toml enables where its engine reads it (root; what "
               "rocmtune-export.timer runs), and remove what a disabled one left");
}

namespace {

// --write: the enabled formats through the helper, which checks them again (plan/publish.h).
int WriteExports(const Context& ctx, const sys::Root& root, const api::ExportReport& report) {
  auto config = plan::ReadExportConfig(root);
  if (!config) return Failed(ctx, config.error(), kExitFailed);
  if (!config->present) {
    PrintError(fmt::format("{} does not exist: no export is enabled (rocmtunectl(1), EXPORT)",
                           root.Display(plan::kExportConfigPath)));
    return kExitFailed;
  }
  LocalWriter writer(ctx);
  if (auto may = writer.MayWrite(root); !may) return Failed(ctx, may.error(), kExitNotAuthorized);
  auto reply = api::PublishExports(report, *config, writer);
  if (!reply) return Failed(ctx, reply.error(), ExitFor(reply.error()));
  if (ctx.json) {
    PrintJson(plan::HelperReplyJson(*reply));
  } else {
    for (const std::string& m : reply->messages) fmt::print("{}\n", m);
    if (reply->status == plan::HelperStatus::kUnchanged) fmt::print("No export is enabled; nothing was written.\n");
  }
  switch (reply->status) {
    case plan::HelperStatus::kCommitted:
    case plan::HelperStatus::kUnchanged: return kExitOk;
    case plan::HelperStatus::kRefused: return kExitRefused;
    default: return kExitFailed;
  }
}

}  // namespace

int RunExport(const Context& ctx, const Args& args) {
  std::string format = args.format.empty() ? (ctx.json ? "json" : "prometheus") : args.format;
  if (args.write && !args.format.empty()) {
    PrintError("--write writes every format export.toml enables: it takes no --format");
    return kExitUsage;
  }
  if (ctx.json && format != "json" && !args.write) {
    PrintError(fmt::format("--json and --format {} ask for two formats", format));
    return kExitUsage;
  }
  auto root = ctx.OpenRoot();
  if (!root) return Failed(ctx, root.error(), ExitFor(root.error()));
  api::ExportOptions options;
  options.version = ROCMTUNE_VERSION;
  options.live_facts = !args.no_live;
  options.read_faults = api::SystemLogReader();  // counts per card and kind: no process or user
  auto report = api::Export(*root, detect::Detect(*root), options);
  if (!report) return Failed(ctx, report.error(), ExitFor(report.error()));
  if (args.write) return WriteExports(ctx, *root, *report);
  // Printed with each format's defaults: the NFD namespace rocmtune.org, whatever export.toml says.
  fmt::print("{}", api::RenderExport(*plan::ParseExportFormat(format), *report, plan::ExportConfig{},
                                     std::chrono::system_clock::now()));
  return kExitOk;
}

}  // namespace rocmtune::client
