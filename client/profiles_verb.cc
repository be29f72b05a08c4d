// `rocmtunectl profiles`: every profile, where it comes from, whether it fits this machine and
// which one is active. `rocmtunectl show NAME`: one profile resolved, each item with what it
// would do here. Both print their document (rocmtune.profiles.v1, rocmtune.profile.v1), made
// here or, for a user who may not read the journal that says which profile is active, by
// rocmtuned (ListProfiles, ShowProfile); tables are rendered from the document either way.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/profiles.h"
#include "client/document.h"
#include "client/exit_codes.h"
#include "client/table.h"
#include "client/verbs.h"

namespace rocmtune::client {
namespace {

// Descriptions are paragraphs; the list shows their start, `show` the whole text.
std::string Ellipsize(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  size_t cut = text.rfind(' ', max - 3);
  return text.substr(0, cut == std::string::npos || cut < max / 2 ? max - 3 : cut) + "...";
}

void PrintField(std::string_view label, std::string_view value) { fmt::print("  {:<9} {}\n", label, value); }

std::string MatchText(const Doc& match) { return match.is_object() ? Field(match, "text", "") : ""; }

std::string HereText(const Doc& here) {
  const std::string verdict = Field(here, "verdict", "");
  std::string reason = Field(here, "reason", "");
  if (verdict == "applies") {
    // The key and value as they will be requested here (placeholders computed, amdttm).
    if (here["key"].is_string() && here["value"].is_string())
      return fmt::format("yes, {}={} ({})", Field(here, "key"), Field(here, "value"), reason);
    return fmt::format("yes ({})", reason);
  }
  if (verdict == "skipped") return fmt::format("no: {}", reason);
  if (verdict == "refused") return fmt::format("refused: {}", reason);
  return reason;
}

// The item's request as the profile writes it, and, when it differs, as it is made here.
std::string HereOf(const Doc& item) {
  const Doc& here = item["here"];
  if (Field(here, "verdict", "") == "applies" && here["key"].is_string() && !here["value"].is_string() &&
      Field(here, "key") != Field(item, "key"))
    return fmt::format("yes, as {} ({})", Field(here, "key"), Field(here, "reason", ""));
  return HereText(here);
}

std::string ItemHeadline(const Doc& item) {
  std::string action = Field(item, "action", "");
  if (action == "set") return fmt::format("{} {}={}", action, Field(item, "key"), Field(item, "value"));
  if (action == "unset") return fmt::format("{} {}", action, Field(item, "key"));
  return action;
}

// Whether it is the active profile: yes, no, or unknown to this user (the note says why).
std::string ActiveText(const Doc& active) {
  if (active.is_boolean()) return active.get<bool>() ? "yes" : "no";
  return "unknown";
}

void PrintNotes(const Doc& doc) {
  const Doc& notes = doc["notes"];
  if (!notes.is_array()) return;
  for (const Doc& n : notes)
    if (n.is_string()) fmt::print("note: {}\n", n.get<std::string>());
}

void PrintShow(const Doc& p) {
  std::string includes;
  for (const Doc& i : p["includes"]) includes += (includes.empty() ? "" : ", ") + i.get<std::string>();
  const bool reset = DocTrue(p, "reset");
  fmt::print("{} ({}{})\n", Field(p, "name"), Field(p, "origin"),
             DocTrue(p, "overrides_builtin") ? ", replaces the built-in" : "");
  PrintField("about:", Field(p, "description", ""));
  PrintField("match:", reset                    ? "every machine"
                       : p["match"].is_object() ? MatchText(p["match"])
                                                : "any machine with an AMD GPU");
  PrintField("here:", fmt::format("{}: {}", DocTrue(p, "matches") ? "yes" : "no", Field(p, "reason", "")));
  PrintField("active:", ActiveText(p["active"]));
  PrintField("includes:", includes.empty() ? "-" : includes);
  if (reset) PrintField("reset:", "yes: applying it removes everything rocmtune configured");
  for (const Doc& item : p["items"]) {
    fmt::print("\n{}: {}\n", Field(item, "id"), ItemHeadline(item));
    if (DocTrue(item, "optional"))
      PrintField("optional:", fmt::format("yes (apply with --with {})", Field(item, "id")));
    if (item["match"].is_object()) PrintField("match:", MatchText(item["match"]));
    if (Field(item, "from") != Field(p, "name")) PrintField("from:", Field(item, "from"));
    PrintField("here:", HereOf(item));
    PrintField("why:", Field(item, "why", ""));
    PrintField("source:", Field(item, "source", ""));
  }
  if (p["active"].is_null()) {
    fmt::print("\n");
    PrintNotes(p);
  }
}

void PrintList(const Doc& doc) {
  for (const Doc& e : doc["errors"]) PrintError(fmt::format("warning: {}", e.get<std::string>()));
  // The reason last: it is the widest column and the one read after the others.
  Table table({"NAME", "ORIGIN", "MATCHES", "DESCRIPTION", "REASON"});
  bool known = true;
  for (const Doc& l : doc["profiles"]) {
    known &= !l["active"].is_null();
    if (l["error"].is_string()) {
      table.AddRow({Field(l, "name"), Field(l, "origin"), "error", "-", Field(l, "error")});
      continue;
    }
    table.AddRow({Field(l, "name"), Field(l, "origin"), DocTrue(l, "matches") ? "yes" : "no",
                  Ellipsize(Field(l, "description", ""), 44), Field(l, "reason", "")});
  }
  fmt::print("{}", table.Render());
  if (doc["active_profile"].is_string()) fmt::print("\nActive profile: {}\n", Field(doc, "active_profile"));
  else if (known) fmt::print("\nActive profile: none\n");
  else fmt::print("\nActive profile: unknown\n");
  PrintNotes(doc);
}

}  // namespace

int RunProfiles(const Context& ctx, const Args&) {
  Fetched doc = ReadDocumentAsUser(
      ctx, "ListProfiles", {},
      [&]() -> Result<Doc> {
        auto system = ctx.LoadSystemForReading();
        if (!system) return tl::unexpected(system.error());
        return api::ProfilesJson(api::ListProfiles(*system));
      },
      kExitFailed);
  if (!doc) return doc.error();
  if (ctx.json) PrintJson(*doc);
  else PrintList(*doc);
  return kExitOk;
}

int RunShow(const Context& ctx, const Args& args) {
  const std::string& name = args.operands.at(0);
  auto local = [&]() -> Result<Doc> {
    auto system = ctx.LoadSystemForReading();
    if (!system) return tl::unexpected(system.error());
    auto report = api::ShowProfile(*system, name, args.with);
    if (!report) return tl::unexpected(report.error());
    return api::ProfileJson(*report);
  };
  // ShowProfile takes no optional items: `show NAME --with ID` is answered here.
  Fetched doc = args.with.empty()
                    ? ReadDocumentAsUser(
                          ctx, "ShowProfile",
                          [&name](sd_bus_message* m) { return sd_bus_message_append(m, "s", name.c_str()); }, local)
                    : FromLocal(ctx, local());
  if (!doc) return doc.error();
  if (ctx.json) PrintJson(*doc);
  else PrintShow(*doc);
  return kExitOk;
}

}  // namespace rocmtune::client
