// `rocmtunectl explain KEY`: what a knob is, its configured / running / effective value here,
// where it is set, whether it matters on each GPU, and why (source). rocmtuned's Explain, or the
// core here.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/explain.h"
#include "client/document.h"
#include "client/exit_codes.h"
#include "client/knob_text.h"
#include "client/verbs.h"

namespace rocmtune::client {
namespace {

void PrintExplain(const Doc& doc) {
  fmt::print("{} ({} backend)\n", Field(doc, "key"), Field(doc, "backend"));
  if (doc.contains("about") && doc["about"].is_array())
    for (const Doc& line : doc["about"])
      if (line.is_string()) fmt::print("  {}\n", line.get<std::string>());
  std::string where = KnobWhere(doc);
  // The next boot's source unknown (owner "unknown"): unknown, not "(not set)".
  const bool unknown = Field(doc, "owner", "") == "unknown";
  fmt::print("\n  configured: {}{}\n", SizedField(doc, "configured", unknown ? "unknown" : "(not set)"),
             where.empty() ? "" : " in " + where);
  fmt::print("  running:    {}\n", SizedField(doc, "running", "unknown"));
  fmt::print("  effective:  {}\n", SizedField(doc, "effective", "unknown"));
  fmt::print("  owner:      {}{}\n", Field(doc, "owner"), KnobNextBoot(doc));
  if (doc.contains("notes") && doc["notes"].is_array())
    for (const Doc& n : doc["notes"])
      if (n.is_string()) fmt::print("  note: {}\n", n.get<std::string>());
}

}  // namespace

int RunExplain(const Context& ctx, const Args& args) {
  const std::string& key = args.operands.at(0);
  Fetched doc = ReadDocument(
      ctx, "Explain", [&](sd_bus_message* m) { return sd_bus_message_append(m, "s", key.c_str()); },
      [&]() -> Result<Doc> {
        auto system = ctx.LoadSystem();
        if (!system) return tl::unexpected(system.error());
        auto report = api::Explain(*system, key);
        if (!report) return tl::unexpected(report.error());
        return api::ExplainJson(*report);
      });
  if (!doc) return doc.error();
  if (ctx.json) PrintJson(*doc);
  else PrintExplain(*doc);
  return kExitOk;
}

}  // namespace rocmtune::client
