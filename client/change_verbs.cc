// apply, set, unset, revert, reset (and reapply, trial cancel through ChangeThroughDaemon):
// rocmtuned runs them (polkit asks, rocmtune-helper writes), or the core here with the helper as a
// child (--root, or no daemon). Either way the outcome is the rocmtune.result.v1 document, rendered
// by client/result_render.cc or printed (--json).
#include <systemd/sd-bus.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/change.h"
#include "bus/handles.h"
#include "client/daemon_link.h"
#include "client/document.h"
#include "client/exit_codes.h"
#include "client/local_writer.h"
#include "client/polkit_agent.h"
#include "client/result_render.h"
#include "client/verbs.h"

namespace rocmtune::client {
namespace {

using Request = std::function<Result<api::ChangeReport>(const sys::Root&, const api::ChangeOptions&, api::Writer&)>;

int RunLocal(const Context& ctx, const Args& args, const Request& request) {
  auto root = ctx.OpenRoot();
  if (!root) return Failed(ctx, root.error(), kExitFailed);
  LocalWriter writer(ctx);
  api::ChangeOptions options{args.check, args.force, nullptr};
  options.admin_lines = args.admin_lines;
  options.trial = args.trial;
  // The plan is shown before anything is written: regenerating an initramfs can take a minute.
  if (!ctx.json) options.on_planned = [&](const api::ChangeReport& r) { PrintPlan(api::ResultJson(r), args); };
  Result<api::ChangeReport> report = request(*root, options, writer);
  if (!report) return Failed(ctx, report.error(), ExitFor(report.error()));
  Doc doc = api::ResultJson(*report);
  if (ctx.json) PrintJson(doc);
  else PrintOutcome(doc, args);
  return RebootIntoTrial(args, DocTrue(doc, "changed"), ExitFor(report->status));
}

// The daemon's answer: a result document (also as the message of Refused, Drift, Failed and
// the authorization errors when a plan was made), or an error without one.
int ShowDaemonResult(const Context& ctx, const Args& args, const BusReply& reply, const char* method) {
  Doc doc = Doc::parse(reply.text, nullptr, /*allow_exceptions=*/false);
  bool is_result = doc.is_object() && doc.value("schema", "") == api::kResultSchema;
  if (!is_result) {
    if (!reply.ok()) return BusFailed(ctx, reply);
    Error error{ErrorCode::kInvalidData, 0, fmt::format("rocmtuned's answer to {} is not a result document", method)};
    return Failed(ctx, error, kExitFailed);
  }
  if (ctx.json) {
    PrintJson(doc);
  } else {
    PrintPlan(doc, args);
    PrintOutcome(doc, args);
    if (!reply.ok() && ExitForBusError(reply.error_name) == kExitNotAuthorized)
      PrintError(HintForBusError(reply.error_name));
  }
  return RebootIntoTrial(args, DocTrue(doc, "changed"), reply.ok() ? kExitOk : ExitForBusError(reply.error_name));
}

// Options of Apply/Set/Unset (a{sv}): with, force, check, admin_lines, trial.
int AppendOptions(sd_bus_message* m, const Args& args, bool with) {
  int r = sd_bus_message_open_container(m, 'a', "{sv}");
  if (r >= 0 && with && !args.with.empty()) {
    r = sd_bus_message_open_container(m, 'e', "sv");
    if (r >= 0) r = sd_bus_message_append(m, "s", "with");
    if (r >= 0) r = sd_bus_message_open_container(m, 'v', "as");
    if (r >= 0) r = sd_bus_message_append_strv(m, const_cast<char**>(bus::Strv(args.with).data()));
    if (r >= 0) r = sd_bus_message_close_container(m);
    if (r >= 0) r = sd_bus_message_close_container(m);
  }
  if (r >= 0 && args.force) r = sd_bus_message_append(m, "{sv}", "force", "b", 1);
  if (r >= 0 && args.check) r = sd_bus_message_append(m, "{sv}", "check", "b", 1);
  if (r >= 0 && args.admin_lines) r = sd_bus_message_append(m, "{sv}", "admin_lines", "b", 1);
  if (r >= 0 && args.trial) r = sd_bus_message_append(m, "{sv}", "trial", "b", 1);
  if (r >= 0) r = sd_bus_message_close_container(m);
  return r;
}

// Runs the change through rocmtuned when the daemon path applies, else here.
int RunChange(const Context& ctx, const Args& args, const char* method, const Append& append, const Request& request) {
  if (args.reboot && ctx.root_given)
    return Failed(ctx, Error{ErrorCode::kInvalidArgument, 0, "--reboot reboots this machine: not with --root"},
                  kExitUsage);
  if (method != nullptr)
    if (std::optional<int> rc = ChangeThroughDaemon(ctx, args, method, append)) return *rc;
  return RunLocal(ctx, args, request);
}

}  // namespace

std::optional<int> ChangeThroughDaemon(const Context& ctx, const Args& args, const char* method, const Append& append) {
  // polkit may ask an admin for a password: an agent on this terminal answers it.
  bool interactive = !ctx.no_ask_password && !args.check;
  std::optional<PolkitAgent> agent;
  if (interactive) agent.emplace();
  std::optional<BusReply> reply =
      AskDaemon(ctx, method, append, {.change = true, .interactive = interactive, .check = args.check});
  agent.reset();
  if (!reply) return std::nullopt;
  return ShowDaemonResult(ctx, args, *reply, method);
}

void AddAdminLinesOption(CLI::App& sub, Args& args) {
  sub.add_flag("--admin-lines", args.admin_lines,
               "Also comment out the admin's lines that set these env keys in /etc/environment, "
               "/etc/environment.d/*.conf and /etc/profile.d/*.sh, and these amdgpu/ttm options in "
               "/etc/modprobe.d/*.conf (one line per file, journaled; revert and reset put them back byte for byte)");
}

int RunApply(const Context& ctx, const Args& args) {
  const std::string& profile = args.operands.at(0);
  return RunChange(
      ctx, args, "Apply",
      [&](sd_bus_message* m) {
        int r = sd_bus_message_append(m, "s", profile.c_str());
        return r < 0 ? r : AppendOptions(m, args, true);
      },
      [&](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
        return api::Apply(root, profile, args.with, o, w);
      });
}

int RunSet(const Context& ctx, const Args& args) {
  // KEY=VALUE operands as the a{ss} Set takes; one without '=' goes the local way, whose
  // parser names it (the daemon would only see a malformed dictionary).
  bool well_formed = true;
  for (const std::string& a : args.operands) well_formed &= a.find('=') != std::string::npos;
  return RunChange(
      ctx, args, well_formed ? "Set" : nullptr,
      [&](sd_bus_message* m) {
        int r = sd_bus_message_open_container(m, 'a', "{ss}");
        for (const std::string& a : args.operands) {
          if (r < 0) break;
          size_t eq = a.find('=');
          r = sd_bus_message_append(m, "{ss}", a.substr(0, eq).c_str(), a.substr(eq + 1).c_str());
        }
        if (r >= 0) r = sd_bus_message_close_container(m);
        return r < 0 ? r : AppendOptions(m, args, false);
      },
      [&](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
        return api::Set(root, args.operands, o, w);
      });
}

int RunUnset(const Context& ctx, const Args& args) {
  return RunChange(
      ctx, args, "Unset",
      [&](sd_bus_message* m) {
        int r = sd_bus_message_append_strv(m, const_cast<char**>(bus::Strv(args.operands).data()));
        return r < 0 ? r : AppendOptions(m, args, false);
      },
      [&](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) {
        return api::Unset(root, args.operands, o, w);
      });
}

// Revert and Reset take no options on the bus: a check is planned here (it writes nothing).
int RunRevert(const Context& ctx, const Args& args) {
  std::string id = args.operands.empty() ? "" : args.operands.front();
  return RunChange(
      ctx, args, args.check || args.force ? nullptr : "Revert",
      [&](sd_bus_message* m) { return sd_bus_message_append(m, "s", id.c_str()); },
      [&](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) { return api::Revert(root, id, o, w); });
}

int RunReset(const Context& ctx, const Args& args) {
  if (!args.purge_plan.empty()) return RunPurgePlan(ctx, args);
  return RunChange(
      ctx, args, args.check || args.force ? nullptr : "Reset", {},
      [&](const sys::Root& root, const api::ChangeOptions& o, api::Writer& w) { return api::Reset(root, o, w); });
}

}  // namespace rocmtune::client
