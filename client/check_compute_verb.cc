// `rocmtunectl check-compute [--workload W] [--device ID]`: may a program run W on the GPUs here
// without meeting a known crash? For a program to ask before it initialises HIP (a fallback
// after a memory access fault cannot work: HIP aborts the process). rocmtuned's CheckCompute, or
// the core here. Exit 0 when every GPU asked about is safe, 1 when one is not or there is none.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "api/check_compute.h"
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
  if (!r.contains("fix") || !r["fix"].is_object()) return;
  const Doc& fix = r["fix"];
  if (fix.contains("none") && fix["none"].is_string()) fmt::print("    no fix: {}\n", fix["none"].get<std::string>());
  if (fix.contains("text") && fix["text"].is_string()) fmt::print("    fix: {}\n", fix["text"].get<std::string>());
  if (fix.contains("profile") && fix["profile"].is_string())
    fmt::print("    profile: sudo rocmtunectl apply {}\n", fix["profile"].get<std::string>());
  fmt::print("{}", Strings(fix, "unset", "    unset: "));
  fmt::print("{}", Strings(fix, "set", "    set: "));
}

// One line per GPU, then each reason with why and the fix.
void PrintHuman(const Doc& doc) {
  std::string workload = Field(doc, "workload");
  const Doc& gpus = doc.contains("gpus") && doc["gpus"].is_array() ? doc["gpus"] : Doc::array();
  if (gpus.empty()) {
    fmt::print("No usable GPU: {}\n", Field(doc, "reason", "none was found"));
    return;
  }
  for (const Doc& g : gpus) {
    bool safe = g.contains("safe") && g["safe"].is_boolean() && g["safe"].get<bool>();
    bool notes = g.contains("notes") && g["notes"].is_array() && !g["notes"].empty();
    std::string card = Field(g, "card", "");
    fmt::print("{}{} {} ({}): {} for {} work{}\n", Field(g, "id"), card.empty() ? "" : " " + card, Field(g, "name"),
               Field(g, "gfx_target", "gfx target unknown"), safe ? "safe" : "NOT SAFE", workload,
               safe && notes ? " (no known crash; read the notes)" : "");
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

int RunCheckCompute(const Context& ctx, const Args& args) {
  Fetched doc = ReadDocument(
      ctx, "CheckCompute",
      [&](sd_bus_message* m) { return sd_bus_message_append(m, "ss", args.workload.c_str(), args.device.c_str()); },
      [&]() -> Result<Doc> {
        auto root = ctx.OpenRoot();
        if (!root) return tl::unexpected(root.error());
        auto report = api::CheckCompute(*root, args.workload, args.device);
        if (!report) return tl::unexpected(report.error());
        return api::CheckComputeJson(*report);
      });
  if (!doc) return doc.error();
  if (ctx.json) PrintJson(*doc);
  else PrintHuman(*doc);
  return Safe(*doc) ? kExitOk : kExitFailed;
}

}  // namespace rocmtune::client
