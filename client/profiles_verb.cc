// `rocmtunectl profiles`: every profile, where it comes from and whether it fits this machine.
// `rocmtunectl show NAME`: one profile resolved, each item with what it would do here.
#include <fmt/format.h>

#include "api/profiles.h"
#include "api/profiles_json.h"
#include "api/status_json.h"
#include "client/exit_codes.h"
#include "client/table.h"
#include "client/verbs.h"
#include "profiles/desired.h"
#include "profiles/profile_store.h"
#include "util/json_text.h"

namespace rocmtune::client {
namespace {

// Descriptions are paragraphs; the list shows their start, `show` the whole text.
std::string Ellipsize(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  size_t cut = text.rfind(' ', max - 3);
  return text.substr(0, cut == std::string::npos || cut < max / 2 ? max - 3 : cut) + "...";
}

void PrintField(std::string_view label, std::string_view value) { fmt::print("  {:<9} {}\n", label, value); }

std::string HereText(const profiles::ItemPlan& p) {
  switch (p.verdict) {
    case profiles::Verdict::kApplies:
      // The key and value as they will be requested here (placeholders computed, amdttm).
      if (p.key && p.value) return fmt::format("yes, {}={} ({})", p.key->Text(), *p.value, p.reason);
      if (p.key && !(*p.key == *p.item->key)) return fmt::format("yes, as {} ({})", p.key->Text(), p.reason);
      return fmt::format("yes ({})", p.reason);
    case profiles::Verdict::kSkipped: return fmt::format("no: {}", p.reason);
    case profiles::Verdict::kRefused: return fmt::format("refused: {}", p.reason);
  }
  return p.reason;
}

std::string ItemHeadline(const profiles::Item& item) {
  std::string action(profiles::ActionName(item.action));
  if (item.action == profiles::Action::kSet) return fmt::format("{} {}={}", action, item.key->Text(), *item.value);
  if (item.action == profiles::Action::kUnset) return fmt::format("{} {}", action, item.key->Text());
  return action;
}

void PrintShow(const profiles::StoreEntry& entry, const profiles::Profile& p, const profiles::MatchResult& match,
               const std::vector<profiles::ItemPlan>& items) {
  std::string includes;
  for (const std::string& i : p.includes) includes += (includes.empty() ? "" : ", ") + i;
  fmt::print("{} ({}{})\n", p.name, entry.origin, entry.overrides_builtin ? ", replaces the built-in" : "");
  PrintField("about:", p.description);
  PrintField("match:", p.reset   ? "every machine"
                       : p.match ? profiles::MatchText(*p.match)
                                 : "any machine with an AMD GPU");
  PrintField("here:", fmt::format("{}: {}", match.matches ? "yes" : "no", match.reason));
  PrintField("includes:", includes.empty() ? "-" : includes);
  if (p.reset) PrintField("reset:", "yes: applying it removes everything rocmtune configured");
  for (const profiles::ItemPlan& ip : items) {
    const profiles::Item& item = *ip.item;
    fmt::print("\n{}: {}\n", item.id, ItemHeadline(item));
    if (item.optional) PrintField("optional:", fmt::format("yes (apply with --with {})", item.id));
    if (item.match) PrintField("match:", profiles::MatchText(*item.match));
    if (item.from != p.name) PrintField("from:", item.from);
    PrintField("here:", HereText(ip));
    PrintField("why:", item.why);
    PrintField("source:", item.source);
  }
}

}  // namespace

int RunProfiles(const Context& ctx, const Args&) {
  auto system = ctx.LoadSystem();
  if (!system) return Failed(ctx, system.error(), kExitFailed);
  api::ProfilesReport report = api::ListProfiles(*system);
  if (ctx.json) {
    fmt::print("{}\n", JsonText(api::ProfilesJson(report)));
    return kExitOk;
  }
  for (const std::string& e : report.store.errors()) PrintError(fmt::format("warning: {}", e));
  // The reason last: it is the widest column and the one read after the others.
  Table table({"NAME", "ORIGIN", "MATCHES", "DESCRIPTION", "REASON"});
  for (const profiles::Listing& l : report.listings) {
    if (!l.resolved) {
      table.AddRow({l.entry->name, l.entry->origin, "error", "-", l.resolved.error().message});
      continue;
    }
    table.AddRow({l.entry->name, l.entry->origin, l.match.matches ? "yes" : "no",
                  Ellipsize(l.resolved->description, 44), l.match.reason});
  }
  fmt::print("{}", table.Render());
  return kExitOk;
}

int RunShow(const Context& ctx, const Args& args) {
  auto system = ctx.LoadSystem();
  if (!system) return Failed(ctx, system.error(), kExitFailed);
  auto report = api::ShowProfile(*system, args.operands.at(0), args.with);
  if (!report) return Failed(ctx, report.error(), ExitFor(report.error()));
  if (ctx.json) fmt::print("{}\n", JsonText(api::ProfileJson(*report)));
  else PrintShow(*report->entry, report->resolved, report->match, report->items);
  return kExitOk;
}

}  // namespace rocmtune::client
