// rocmtunectl: the unprivileged client. Global options, then one verb of the table
// (client/verb_table.cc), run after parsing, once --json (which may follow the verb) is known.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <span>
#include <string_view>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/error_json.h"
#include "api/status_json.h"
#include "bus/power_profiles.h"
#include "client/escaped_output.h"
#include "client/exit_codes.h"
#include "client/verbs.h"
#include "detect/power_profiles_request.h"
#include "util/json_text.h"
#include "util/suggest.h"

using namespace rocmtune::client;

namespace {

void AddVerb(CLI::App& app, const Verb& verb, Context& ctx, Args& args) {
  CLI::App* sub = app.add_subcommand(std::string(verb.name), std::string(verb.help));
  if (!verb.operand_name.empty()) {
    int max = verb.max_operands == kManyOperands ? CLI::detail::expected_max_vector_size : verb.max_operands;
    CLI::Option* operands =
        sub->add_option(std::string(verb.operand_name), args.operands, std::string(verb.operand_help));
    // At least one item per occurrence, even when the operand is optional (not required()):
    // CLI11 2.1 hands `--` back to the parent unless a positional still expects an item, so
    // `reapply -- card0` (rocmtune-apply@.service) would be "not expected" with a minimum of 0.
    operands->expected(std::max(verb.min_operands, 1), max);
    if (verb.min_operands > 0) operands->required();
  }
  if (verb.flags & kVerbWith)
    sub->add_option("--with", args.with, "Include the optional item ID (repeatable)")->option_text("ID");
  if (verb.flags & kVerbChanges) {
    sub->add_flag("--check", args.check, "Only show the plan; write nothing (exit 0 if it could be applied)");
    sub->add_flag("--diff", args.diff, "Show the unified diff of every file change");
    sub->add_flag("--force", args.force, std::string(verb.force_help));
  }
  // Options may also follow the verb (`rocmtunectl status --json`), as with systemctl.
  sub->add_flag("--json", ctx.json, std::string(verb.json_help));
  if (verb.add_options) verb.add_options(*sub, args);
}

// " did you mean status?" for a mistyped verb, or "".
std::string VerbSuggestion(std::string_view typed) {
  std::vector<std::string> names;
  for (const Verb& verb : Verbs()) names.emplace_back(verb.name);
  std::string near = rocmtune::text::DidYouMean(typed, names);  // " Did you mean X?"
  if (near.empty()) return "";
  near[1] = 'd';
  return near.substr(0, near.size() - 1) + ";";
}

std::string VerbList() {
  std::string out;
  for (const Verb& verb : Verbs()) out += (out.empty() ? "" : ", ") + std::string(verb.name);
  return out;
}

// A command line CLI11 refused. Without a verb (none given, or a word that is not one) the
// message names the verbs; under --json (wherever it was) the error document follows on stdout.
int UsageError(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  bool json = false;
  for (int i = 1; i < argc; ++i) json |= std::string_view(argv[i]) == "--json";
  std::string message = e.what();
  if (app.get_subcommands().empty()) {
    auto extras = app.remaining();
    message = extras.empty() ? fmt::format("a verb is needed; verbs: {}", VerbList())
                             : fmt::format("unknown verb '{}';{} verbs: {}", extras.front(),
                                           VerbSuggestion(extras.front()), VerbList());
    fmt::print(stderr, "rocmtunectl: {}\nRun with --help for more information.\n", message);
  } else {
    app.exit(e);
  }
  if (json) {
    rocmtune::Error error{rocmtune::ErrorCode::kInvalidArgument, 0, message};
    fmt::print("{}\n", rocmtune::JsonText(rocmtune::api::ErrorJson(error, "see rocmtunectl --help")));
  }
  return kExitUsage;
}

// The verb the command line names: its first word that is neither an option nor --root's value.
// Only that verb is declared to CLI11: declaring all of them (with their options and help) was
// about a quarter of a verb's instructions at start, and check-compute runs before every training
// script. Without one (no verb, a word that is none, or --help/--version before it) every verb is
// declared, for the help and the error that lists them.
const Verb* NamedVerb(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view word = argv[i];
    if (word == "--" || word == "--help" || word == "-h" || word == "--version") return nullptr;
    if (word == "--root") {
      ++i;
      continue;
    }
    if (word.starts_with('-')) continue;
    for (const Verb& verb : Verbs())
      if (verb.name == word) return &verb;
    return nullptr;
  }
  return nullptr;
}

}  // namespace

namespace {

int Run(int argc, char** argv) {
  // power-profiles-daemon's own answers for the live root's writer.* findings (bus/power_profiles.h).
  rocmtune::bus::RegisterPowerProfilesProbe(/*any_root=*/false);
  CLI::App app{"rocmtunectl - make AMD GPUs work for ROCm compute, truthfully and reversibly"};
  app.set_version_flag("--version", ROCMTUNE_VERSION);
  app.require_subcommand(1);
  Context ctx;
  app.add_option("--root", ctx.root, "Work on the tree at DIR instead of / (a world or an image)")
      ->option_text("DIR")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--json", ctx.json, "Print one JSON document on stdout, nothing else");
  app.add_flag("--no-ask-password", ctx.no_ask_password, "Do not ask for authentication interactively");
  Args args;
  const Verb* named = NamedVerb(argc, argv);
  std::span<const Verb> declared = named ? std::span<const Verb>(named, 1) : Verbs();
  for (const Verb& verb : declared) AddVerb(app, verb, ctx, args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    return UsageError(app, e, argc, argv);
  }
  ctx.root_given = app.count("--root") > 0;
  EscapedOutput escaped(!ctx.json);
  const rocmtune::detect::PowerProfilesRequest one_ppd_answer;  // the verb is one request
  for (const Verb& verb : declared)
    if (app.got_subcommand(std::string(verb.name))) return verb.run(ctx, args);
  return kExitUsage;
}

}  // namespace

// The core returns errors as values; what still throws (std::bad_alloc, a library's
// exception) ends the run with a message and exit 1 rather than std::terminate.
int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rocmtunectl: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "rocmtunectl: an unknown error\n");
  }
  return kExitFailed;
}
