// `rocmtunectl check-compute [--workload W] [--device ID]`: may a program run W on the GPUs here
// without meeting a known crash? For a program to ask before it initialises HIP (a fallback
// after a memory access fault cannot work: HIP aborts the process). rocmtuned's CheckCompute, or
// the core here. Exit 0 when every GPU asked about is safe, 1 when one is not or there is none.
#include <filesystem>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/check_compute.h"
#include "client/caller_env.h"
#include "client/document.h"
#include "client/exit_codes.h"
#include "client/verbs.h"
#include "program/context.h"

namespace rocmtune::client {
namespace {

std::string Strings(const Doc& doc, std::string_view key, std::string_view prefix) {
  std::string out;
  if (doc.contains(key) && doc[key].is_array())
    for (const Doc& s : doc[key])
      if (s.is_string()) out += fmt::format("{}{}\n", prefix, s.get<std::string>());
  return out;
}

void PrintReason(const Doc& r, std::string_view kind) {
  fmt::print("  {}: {} [{}]\n", kind, Field(r, "title"), Field(r, "id"));
  if (r.contains("why") && r["why"].is_string()) fmt::print("    why: {}\n", r["why"].get<std::string>());
  fmt::print("{}", Strings(r, "evidence", "    seen: "));
  if (std::string at = PlacesText(r); !at.empty()) fmt::print("    at: {}\n", at);
  if (!r.contains("fix") || !r["fix"].is_object()) return;
  const Doc& fix = r["fix"];
  if (fix.contains("none") && fix["none"].is_string()) fmt::print("    no fix: {}\n", fix["none"].get<std::string>());
  if (fix.contains("text") && fix["text"].is_string()) fmt::print("    fix: {}\n", fix["text"].get<std::string>());
  if (fix.contains("profile") && fix["profile"].is_string())
    fmt::print("    profile: sudo rocmtunectl apply {}\n", fix["profile"].get<std::string>());
  fmt::print("{}", Strings(fix, "unset", "    unset: "));
  fmt::print("{}", Strings(fix, "set", "    set: "));
}

// The verdict in words: the state (diagnose/verdict.h), never "safe" where the runtime has no
// code for the GPU or what decides could not be determined.
std::string Verdict(const Doc& g, const std::string& workload) {
  std::string state = Field(g, "state", "unknown");
  std::string hidden = DocTrue(g, "visible") ? "" : " (hidden from the program: it cannot hurt it)";
  if (state == "unusable") return "NOT USABLE: ROCm programs cannot use this GPU" + hidden;
  if (state == "unsafe") return fmt::format("UNSAFE for {} work{}", workload, hidden);
  if (state == "unsupported")
    return fmt::format("UNSUPPORTED for {} work: the runtime has no code for it{}", workload, hidden);
  if (state == "unknown") return fmt::format("UNKNOWN for {} work: see what is missing{}", workload, hidden);
  const Doc& notes = Member(g, "notes");
  std::string index = Field(g, "hip_index", "");
  std::string device = index.empty() ? "" : fmt::format(" (HIP device {})", index);
  if (notes.is_array() && !notes.empty()) return fmt::format("safe for {} work{} (see the notes)", workload, device);
  return fmt::format("safe for {} work{}", workload, device) + hidden;
}

void PrintProgram(const Doc& doc) {
  const Doc& program = Member(doc, "program");
  const Doc& runtime = Member(program, "runtime");
  fmt::print("For {}: runtime {}\n", Field(program, "name", "programs started from this shell"),
             runtime.is_object() ? Field(runtime, "label") : "none found");
  for (const Doc& n : Member(program, "notes"))
    if (n.is_string()) fmt::print("  note: {}\n", n.get<std::string>());
}

// One line per GPU, then each reason with why and the fix.
void PrintCheckCompute(const Doc& doc) {
  std::string workload = Field(doc, "workload");
  const Doc& gpus = doc.contains("gpus") && doc["gpus"].is_array() ? doc["gpus"] : Doc::array();
  if (gpus.empty()) {
    fmt::print("No usable GPU: {}\n", Field(doc, "reason", "none was found"));
    return;
  }
  PrintProgram(doc);
  for (const Doc& g : gpus) {
    std::string card = Field(g, "card", "");
    fmt::print("{}{} {} ({}): {}\n", Field(g, "id"), card.empty() ? "" : " " + card, Field(g, "name"),
               Field(g, "gfx_target", "gfx target unknown"), Verdict(g, workload));
    if (g.contains("reasons") && g["reasons"].is_array())
      for (const Doc& r : g["reasons"]) PrintReason(r, Field(r, "outcome"));
    if (g.contains("notes") && g["notes"].is_array())
      for (const Doc& r : g["notes"]) PrintReason(r, "note");
  }
}

bool Safe(const Doc& doc) { return doc.contains("safe") && doc["safe"].is_boolean() && doc["safe"].get<bool>(); }

// --unit, --conda, --env-file: the program whose environment is judged instead of this shell's.
Result<std::optional<program::Context>> ProgramOf(const sys::Root& root, const Args& args) {
  int given = (args.unit.empty() ? 0 : 1) + (args.conda.empty() ? 0 : 1) + (args.env_file.empty() ? 0 : 1);
  if (given > 1) return Fail(ErrorCode::kInvalidArgument, "give one of --unit, --conda, --env-file");
  if (args.user_unit && args.unit.empty()) return Fail(ErrorCode::kInvalidArgument, "--user goes with --unit NAME");
  if (!args.unit.empty()) {
    auto c = program::UnitContext(root, args.unit, args.user_unit, CallerHome(root));
    if (!c) return tl::unexpected(c.error());
    return std::optional<program::Context>(std::move(*c));
  }
  if (!args.conda.empty()) {
    auto c = program::CondaContext(root, args.conda, CallerHome(root), CallerEnvironment(root));
    if (!c) return tl::unexpected(c.error());
    return std::optional<program::Context>(std::move(*c));
  }
  if (!args.env_file.empty()) {
    std::string path = args.env_file;
    if (!path.starts_with('/')) {
      // Relative to where the command runs, as any file argument.
      std::error_code ec;
      path = (std::filesystem::current_path(ec) / path).string();
    }
    while (path.starts_with('/')) path.erase(0, 1);
    auto c = program::EnvFileContext(root, path);
    if (!c) return tl::unexpected(c.error());
    // An environment file is read on top of the caller's own environment.
    std::vector<knobs::EnvSetting> env = CallerEnvironment(root);
    env.insert(env.end(), c->env.begin(), c->env.end());
    c->env = std::move(env);
    return std::optional<program::Context>(std::move(*c));
  }
  return std::optional<program::Context>();
}

}  // namespace

void AddCheckComputeOptions(CLI::App& sub, Args& args) {
  sub.add_option("--workload", args.workload,
                 "The kind of work the program runs: conv, gemm, or any (default: any, every kind)")
      ->option_text("W");
  sub.add_option("--device", args.device, "Only this GPU: its id (PCI address), card or render node")
      ->option_text("ID");
  sub.add_option("--unit", args.unit,
                 "Judge the programs of this systemd unit (its Environment= and drop-ins), e.g. ollama.service")
      ->option_text("NAME");
  sub.add_flag("--user", args.user_unit, "With --unit: the caller's user unit, not a system one");
  sub.add_option("--conda", args.conda, "Judge programs run in this conda environment (name or prefix)")
      ->option_text("ENV");
  sub.add_option("--env-file", args.env_file, "Judge programs run with this environment file on top of this shell's")
      ->option_text("FILE");
}

// Answered here, never by rocmtuned: the question is about the programs this process starts,
// which run with its environment (and its user's shell files), and the daemon sees neither.
// Nothing it reads needs privileges (sysfs, KFD's topology, the environment files).
int RunCheckCompute(const Context& ctx, const Args& args) {
  auto root = ctx.OpenRoot();
  if (!root) return Failed(ctx, root.error(), ExitFor(root.error()));
  auto program = ProgramOf(*root, args);
  if (!program) return Failed(ctx, program.error(), ExitFor(program.error()));
  // This boot's GPU faults are read with this user's rights (what the journal lets it read).
  auto report = api::CheckCompute(*root, detect::Detect(*root), args.workload, args.device, true,
                                  CallerEnvironment(*root), std::move(*program), api::SystemLogReader());
  if (!report) return Failed(ctx, report.error(), ExitFor(report.error()));
  Doc doc = api::CheckComputeJson(*report);
  if (ctx.json) PrintJson(doc);
  else PrintCheckCompute(doc);
  return Safe(doc) ? kExitOk : kExitFailed;
}

}  // namespace rocmtune::client
