// rocmtunectl: the unprivileged client. A verb table over CLI11.
#include <functional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "client/escaped_output.h"
#include "client/exit_codes.h"
#include "client/verbs.h"

using namespace rocmtune::client;

int main(int argc, char** argv) {
  CLI::App app{"rocmtunectl - make AMD GPUs work for ROCm compute, truthfully and reversibly"};
  app.set_version_flag("--version", ROCMTUNE_VERSION);
  app.require_subcommand(1);
  Context ctx;
  app.add_option("--root", ctx.root, "Work on the tree at DIR instead of / (a world or an image)")
      ->option_text("DIR")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--json", ctx.json, "Print one JSON document on stdout, nothing else");
  app.add_flag("--no-ask-password", ctx.no_ask_password, "Do not ask for authentication interactively");

  // The verb runs after parsing, once --json (which may follow the verb) is known.
  std::function<int()> run;
  CLI::App* status = app.add_subcommand("status", "Show GPUs, system facts and rocmtune's state");
  status->callback([&] { run = [&] { return RunStatus(ctx); }; });
  // Options may also follow the verb (`rocmtunectl status --json`), as with systemctl.
  status->add_flag("--json", ctx.json, "Print rocmtune.status.v1 JSON");

  std::string out_dir;
  CLI::App* snapshot = app.add_subcommand("snapshot", "Write a world (sysfs/KFD/config copy) of this machine to DIR");
  snapshot->add_option("dir", out_dir, "Output directory (must not exist or be empty)")->required();
  snapshot->add_flag("--json", ctx.json, "Print a JSON summary");
  snapshot->callback([&] { run = [&] { return RunSnapshot(ctx, out_dir); }; });

  // Verbs that change something share --check / --diff / --force / --json.
  ChangeOptions change;
  auto change_flags = [&](CLI::App* verb) {
    verb->add_flag("--check", change.check, "Only show the plan; write nothing (exit 0 if it could be applied)");
    verb->add_flag("--diff", change.diff, "Show the unified diff of every file change");
    verb->add_flag("--force", change.force, "Overwrite rocmtune's files even where someone else edited them (drift)");
    verb->add_flag("--json", ctx.json, "Print rocmtune.result.v1 JSON");
  };

  std::string apply_profile;
  std::vector<std::string> apply_with;
  CLI::App* apply = app.add_subcommand("apply", "Apply a profile (replacing the active one): plan, journal, change");
  apply->add_option("profile", apply_profile, "PROFILE (see `rocmtunectl profiles`)")->required();
  apply->add_option("--with", apply_with, "Include the optional item ID (repeatable)")->option_text("ID");
  change_flags(apply);
  apply->get_option("--force")->description(
      "Apply a profile that does not fit this machine, and overwrite rocmtune's files someone else edited (drift)");
  apply->callback([&] { run = [&] { return RunApply(ctx, apply_profile, apply_with, change); }; });

  std::vector<std::string> assignments;
  CLI::App* set = app.add_subcommand("set", "Set knobs: amdgpu.P=V, ttm.P=V, cmdline.O=V, sysfs.T.A=V, env.V=X");
  set->add_option("assignments", assignments, "KEY=VALUE")->required();
  change_flags(set);
  set->callback([&] { run = [&] { return RunSet(ctx, assignments, change); }; });

  std::vector<std::string> keys;
  CLI::App* unset = app.add_subcommand("unset", "Remove rocmtune's setting of knobs");
  unset->add_option("keys", keys, "KEY")->required();
  change_flags(unset);
  unset->callback([&] { run = [&] { return RunUnset(ctx, keys, change); }; });

  std::string revert_id;
  CLI::App* revert = app.add_subcommand("revert", "Undo a transaction (default: the last one still in effect)");
  revert->add_option("id", revert_id, "Transaction ID from `history`, or `last`");
  change_flags(revert);
  revert->callback([&] { run = [&] { return RunRevert(ctx, revert_id, change); }; });

  CLI::App* reset = app.add_subcommand("reset", "Back to stock: remove every setting rocmtune made");
  change_flags(reset);
  reset->callback([&] { run = [&] { return RunReset(ctx, change); }; });

  CLI::App* history = app.add_subcommand("history", "List rocmtune's transactions");
  history->add_flag("--json", ctx.json, "Print rocmtune.history.v1 JSON");
  history->callback([&] { run = [&] { return RunHistory(ctx); }; });

  CLI::App* verify = app.add_subcommand("verify", "Compare what rocmtune configured with what runs; exit 6 on differences");
  verify->add_flag("--json", ctx.json, "Print rocmtune.verify.v1 JSON");
  verify->callback([&] { run = [&] { return RunVerify(ctx); }; });

  std::string explain_key;
  CLI::App* explain = app.add_subcommand("explain", "What a knob is, its values here, whether it matters on each GPU, and why");
  explain->add_option("key", explain_key, "KEY (e.g. amdgpu.mtype_local)")->required();
  explain->add_flag("--json", ctx.json, "Print JSON");
  explain->callback([&] { run = [&] { return RunExplain(ctx, explain_key); }; });

  // profiles verbs
  CLI::App* profiles = app.add_subcommand("profiles", "List profiles: origin, whether each fits this machine, and why");
  profiles->add_flag("--json", ctx.json, "Print rocmtune.profiles.v1 JSON");
  profiles->callback([&] { run = [&] { return RunProfiles(ctx); }; });
  std::string profile_name;
  std::vector<std::string> with_optional;
  CLI::App* show = app.add_subcommand("show", "Show a profile: its items, their sources, and what each would do here");
  show->add_option("profile", profile_name, "PROFILE (see `rocmtunectl profiles`)")->required();
  show->add_option("--with", with_optional, "Include the optional item ID (repeatable)")->option_text("ID");
  show->add_flag("--json", ctx.json, "Print rocmtune.profile.v1 JSON");
  show->callback([&] { run = [&] { return RunShow(ctx, profile_name, with_optional); }; });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  EscapedOutput escaped(!ctx.json);
  return run ? run() : kExitOk;
}
