// trial [cancel|check|commit|recover]: the trial boot a `--trial` change prepared (core/api/trial.h).
// Without an action: show it. `cancel` drops it. `check --boot`, `commit --boot` and
// `recover --boot` are what rocmtune-trial-check.service, rocmtune-trial-commit.service and
// rocmtune-recover.service run in the boots concerned; they need --boot so that nobody runs them
// by accident from a shell. The check's inputs the core cannot gather are gathered here: this
// boot's kernel log (journalctl -k -b 0) and the admin's command of /etc/rocmtune/trial.toml.

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/change.h"
#include "api/trial.h"
#include "client/document.h"
#include "client/exit_codes.h"
#include "client/local_writer.h"
#include "client/result_render.h"
#include "client/verbs.h"
#include "sys/run_command.h"
#include "util/json_text.h"

namespace rocmtune::client {
namespace {

constexpr size_t kMaxKernelLogBytes = 16u << 20;

void PrintState(const std::optional<plan::TrialState>& state) {
  if (!state) {
    fmt::print("No trial boot.\n");
    return;
  }
  fmt::print("Trial {}: {}\n", state->id, plan::TrialPhaseName(state->state));
  std::string request = state->request.verb;
  if (!state->request.profile.empty()) request += " " + state->request.profile;
  for (const std::string& a : state->request.args) request += " " + a;
  fmt::print("  request:  {}\n", request);
  fmt::print("  tokens:   {}\n", fmt::join(state->tokens, " "));
  fmt::print("  setup:    {}{}\n", state->setup, state->entry.empty() ? "" : fmt::format(" (entry /{})", state->entry));
  fmt::print("  created:  {}; updated {}\n", state->created, state->updated);
  fmt::print("  baseline: {} GPU(s) bound to amdgpu; check-compute {}\n", state->gpus_before.size(),
             state->verdict_before);
  if (!state->transaction.empty()) fmt::print("  committed as transaction {}\n", state->transaction);
  for (const std::string& s : state->seen) fmt::print("  seen: {}\n", s);
  if (plan::IsPending(state->state)) fmt::print("\nReboot to try it (rocmtunectl trial cancel drops it).\n");
}

int ShowReport(const Context& ctx, const Args& args, const Result<api::ChangeReport>& report) {
  if (!report) return Failed(ctx, report.error(), ExitFor(report.error()));
  Doc doc = api::ResultJson(*report);
  if (ctx.json) fmt::print("{}\n", JsonText(doc));
  else PrintOutcome(doc, args);
  return ExitFor(report->status);
}

api::TrialCheckInputs GatherCheckInputs(const Args& args, const sys::Root& root) {
  api::TrialCheckInputs inputs;
  if (!args.kernel_log.empty()) {
    auto text = ReadLogFile(args.kernel_log);
    if (text) inputs.kernel_log = std::move(*text);
    else PrintError(fmt::format("--kernel-log {}: {}", args.kernel_log, text.error().message));
  } else if (root.IsLive()) {
    // This boot's kernel messages, from journald (the kernel's ring buffer may have wrapped).
    sys::CommandResult log = sys::RunCommand({"/usr/bin/journalctl", "-k", "-b", "0", "-o", "cat", "--no-pager", "-q"},
                                             std::chrono::seconds(60), kMaxKernelLogBytes);
    if (log.ok) inputs.kernel_log = std::move(log.out);
    else PrintError(fmt::format("this boot's kernel log could not be read: {}", log.why));
  }
  // The admin's check (/etc/rocmtune/trial.toml): CheckTrial reads it and calls this only for a
  // pending trial in the boot that carries its token.
  inputs.run_admin_check = [&root](const api::TrialAdminCheck& check) -> std::string {
    if (!root.IsLive()) return "the admin's check runs only in the trial boot itself (not on a --root tree)";
    sys::CommandResult ran = sys::RunCommand(check.argv, check.timeout);
    return ran.ok ? "" : ran.why;
  };
  return inputs;
}

}  // namespace

void AddTrialOption(CLI::App& sub, Args& args) {
  CLI::Option* trial =
      sub.add_flag("--trial", args.trial,
                   "Try the boot-affecting part (kernel options, amdgpu/ttm options) in one boot first: write only a "
                   "one-shot boot entry; the change is made permanent when that boot's GPUs come up healthy");
  sub.add_flag("--reboot", args.reboot,
               "With --trial: reboot into the trial boot once it is prepared (systemctl reboot); not with --root")
      ->needs(trial);
}

int RebootIntoTrial(const Args& args, bool changed, int rc) {
  if (!args.reboot || args.check || rc != kExitOk) return rc;
  if (!changed) {
    PrintError("--reboot: no trial was prepared (nothing to change), so no reboot");
    return rc;
  }
  fmt::print(stderr, "Rebooting into the trial boot (systemctl reboot).\n");
  std::fflush(stderr);
  sys::CommandResult ran = sys::RunCommand({"/usr/bin/systemctl", "reboot"}, std::chrono::seconds(60));
  if (ran.ok) return rc;
  PrintError(
      fmt::format("the trial is prepared but the reboot failed: {}; reboot to try it, or drop it with "
                  "`rocmtunectl trial cancel`",
                  ran.why));
  return kExitFailed;
}

void AddSetUnsetOptions(CLI::App& sub, Args& args) {
  AddAdminLinesOption(sub, args);
  AddTrialOption(sub, args);
}

void AddTrialVerbOptions(CLI::App& sub, Args& args) {
  sub.add_flag("--boot", args.boot, "check, commit, recover: run as the boot units do (required for them)");
  sub.add_option("--kernel-log", args.kernel_log,
                 "check: read this boot's kernel log from FILE instead of journalctl -k -b 0");
}

int RunTrial(const Context& ctx, const Args& args) {
  const std::string action = args.operands.empty() ? "" : args.operands.front();
  auto root = ctx.OpenRoot();
  if (!root) return Failed(ctx, root.error(), kExitFailed);
  if (action.empty() || action == "show") {
    auto state = api::ReadTrial(*root);
    if (!state) return Failed(ctx, state.error(), ExitFor(state.error()));
    if (ctx.json) fmt::print("{}\n", JsonText(api::TrialJson(*state)));
    else PrintState(*state);
    return kExitOk;
  }
  bool boot_action = action == "check" || action == "commit" || action == "recover";
  if (action != "cancel" && !boot_action)
    return Failed(
        ctx,
        Error{ErrorCode::kInvalidArgument, 0,
              fmt::format("trial: unknown action '{}' (show, cancel; check, commit, recover with --boot)", action)},
        kExitUsage);
  if (boot_action && !args.boot)
    return Failed(ctx,
                  Error{ErrorCode::kInvalidArgument, 0,
                        fmt::format("trial {} is run by rocmtune's boot units: give --boot to run it by hand", action)},
                  kExitUsage);
  // cancel through rocmtuned (polkit's org.rocmtune1.revert) unless --root, no daemon or --check.
  if (action == "cancel" && !args.check)
    if (std::optional<int> rc = ChangeThroughDaemon(ctx, args, "CancelTrial", {})) return *rc;
  LocalWriter writer(ctx);
  api::ChangeOptions options{args.check, false, nullptr};
  if (!ctx.json) options.on_planned = [&](const api::ChangeReport& r) { PrintPlan(api::ResultJson(r), args); };
  if (action == "cancel") return ShowReport(ctx, args, api::CancelTrial(*root, options, writer));
  if (action == "commit") return ShowReport(ctx, args, api::CommitTrial(*root, options, writer));
  if (action == "recover") return ShowReport(ctx, args, api::RecoverTrial(*root, options, writer));
  api::TrialCheckInputs inputs = GatherCheckInputs(args, *root);
  return ShowReport(ctx, args, api::CheckTrial(*root, inputs, options, writer));
}

}  // namespace rocmtune::client
