// `rocmtunectl check-compute [--workload W] [--device ID]`: may a program run W on the GPUs here
// without meeting a known crash? For a program to ask before it initialises HIP (a fallback
// after a memory access fault cannot work: HIP aborts the process). rocmtuned's CheckCompute, or
// the core here. Exit 0 when every GPU asked about is safe, 1 when one is not or there is none.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/check_compute.h"
#include "client/caller_env.h"
#include "client/document.h"
#include "client/exit_codes.h"
#include "client/verbs.h"

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
  if (std::string file = Field(r, "file", ""); !file.empty()) {
    std::string line = Field(r, "line", "");
    fmt::print("    at: /{}{}\n", file, line.empty() ? "" : ":" + line);
  }
  if (!r.contains("fix") || !r["fix"].is_object()) return;
  const Doc& fix = r["fix"];
  if (fix.contains("none") && fix["none"].is_string()) fmt::print("    no fix: {}\n", fix["none"].get<std::string>());
  if (fix.contains("text") && fix["text"].is_string()) fmt::print("    fix: {}\n", fix["text"].get<std::string>());
  if (fix.contains("profile") && fix["profile"].is_string())
    fmt::print("    profile: sudo rocmtunectl apply {}\n", fix["profile"].get<std::string>());
  fmt::print("{}", Strings(fix, "unset", "    unset: "));
  fmt::print("{}", Strings(fix, "set", "    set: "));
}

bool HasNote(const Doc& g, std::string_view outcome) {
  if (!g.contains("notes") || !g["notes"].is_array()) return false;
  for (const Doc& n : g["notes"])
    if (Field(n, "outcome", "") == outcome) return true;
  return false;
}

// The verdict in words. Never "safe" above a note that ROCm does not support the GPU: programs
// meet no known crash there, but may find no code for it.
std::string Verdict(const Doc& g, const std::string& workload) {
  if (g.contains("usable") && g["usable"].is_boolean() && !g["usable"].get<bool>())
    return "NOT USABLE: ROCm programs cannot use this GPU";
  if (!DocTrue(g, "safe")) return fmt::format("NOT SAFE for {} work", workload);
  if (HasNote(g, "unsupported"))
    return fmt::format("no known crash for {} work, but not supported by the installed ROCm (see the note)", workload);
  if (HasNote(g, "limits")) return fmt::format("safe for {} work, with limits (see the notes)", workload);
  return fmt::format("safe for {} work", workload);
}

// One line per GPU, then each reason with why and the fix.
void PrintCheckCompute(const Doc& doc) {
  std::string workload = Field(doc, "workload");
  const Doc& gpus = doc.contains("gpus") && doc["gpus"].is_array() ? doc["gpus"] : Doc::array();
  if (gpus.empty()) {
    fmt::print("No usable GPU: {}\n", Field(doc, "reason", "none was found"));
    return;
  }
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

}  // namespace

void AddCheckComputeOptions(CLI::App& sub, Args& args) {
  sub.add_option("--workload", args.workload,
                 "The kind of work the program runs: conv, gemm, or any (default: any, every kind)")
      ->option_text("W");
  sub.add_option("--device", args.device, "Only this GPU: its id (PCI address), card or render node")
      ->option_text("ID");
}

// Answered here, never by rocmtuned: the question is about the programs this process starts,
// which run with its environment (and its user's shell files), and the daemon sees neither.
// Nothing it reads needs privileges (sysfs, KFD's topology, the environment files).
int RunCheckCompute(const Context& ctx, const Args& args) {
  auto root = ctx.OpenRoot();
  if (!root) return Failed(ctx, root.error(), ExitFor(root.error()));
  auto report =
      api::CheckCompute(*root, detect::Detect(*root), args.workload, args.device, true, CallerEnvironment(*root));
  if (!report) return Failed(ctx, report.error(), ExitFor(report.error()));
  Doc doc = api::CheckComputeJson(*report);
  if (ctx.json) PrintJson(doc);
  else PrintCheckCompute(doc);
  return Safe(doc) ? kExitOk : kExitFailed;
}

}  // namespace rocmtune::client
