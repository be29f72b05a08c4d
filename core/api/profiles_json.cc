#include "api/profiles_json.h"

#include <nlohmann/json.hpp>

namespace rocmtune::api {
namespace {

using nlohmann::ordered_json;

template <typename T>
ordered_json OptionalJson(const std::optional<T>& v) {
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

ordered_json MatchJson(const std::optional<profiles::Match>& match) {
  if (!match) return nullptr;
  ordered_json families = ordered_json::array();
  for (knowledge::Family f : match->family) families.push_back(std::string(knowledge::FamilyName(f)));
  // "text": the match as people read it (`show` prints it from this document, whoever made it).
  return {{"gfx", match->gfx},
          {"family", families},
          {"apu", OptionalJson(match->apu)},
          {"all", match->all},
          {"text", profiles::MatchText(*match)}};
}

}  // namespace

std::string_view VerdictName(profiles::Verdict verdict) {
  switch (verdict) {
    case profiles::Verdict::kApplies: return "applies";
    case profiles::Verdict::kSkipped: return "skipped";
    case profiles::Verdict::kRefused: return "refused";
  }
  return "skipped";
}

ordered_json ProfilesJson(const std::vector<profiles::Listing>& listings,
                          const std::vector<std::string>& store_errors) {
  ordered_json rows = ordered_json::array();
  for (const profiles::Listing& l : listings) {
    bool ok = l.resolved.has_value();
    rows.push_back({
        {"name", l.entry->name},
        {"origin", l.entry->origin},
        {"overrides_builtin", l.entry->overrides_builtin},
        {"description", ok ? ordered_json(l.resolved->description) : ordered_json(nullptr)},
        {"reset", ok ? ordered_json(l.resolved->reset) : ordered_json(nullptr)},
        {"matches", ok ? ordered_json(l.match.matches) : ordered_json(nullptr)},
        {"reason", ok ? ordered_json(l.match.reason) : ordered_json(nullptr)},
        {"error", ok ? ordered_json(nullptr) : ordered_json(l.resolved.error().message)},
    });
  }
  return {{"schema", kProfilesSchema}, {"profiles", rows}, {"errors", store_errors}};
}

ordered_json ProfileJson(const profiles::StoreEntry& entry, const profiles::Profile& resolved,
                         const profiles::MatchResult& match, const std::vector<profiles::ItemPlan>& items) {
  ordered_json out_items = ordered_json::array();
  for (const profiles::ItemPlan& p : items) {
    const profiles::Item& item = *p.item;
    out_items.push_back({
        {"id", item.id},
        {"from", item.from},
        {"action", std::string(profiles::ActionName(item.action))},
        {"key", item.key ? ordered_json(item.key->Text()) : ordered_json(nullptr)},
        {"value", OptionalJson(item.value)},
        {"optional", item.optional},
        {"match", MatchJson(item.match)},
        {"why", item.why},
        {"source", item.source},
        {"here",
         {{"verdict", std::string(VerdictName(p.verdict))},
          {"reason", p.reason},
          {"key", p.key ? ordered_json(p.key->Text()) : ordered_json(nullptr)},
          {"value", OptionalJson(p.value)}}},
    });
  }
  return {
      {"schema", kProfileSchema},
      {"name", resolved.name},
      {"origin", entry.origin},
      {"overrides_builtin", entry.overrides_builtin},
      {"description", resolved.description},
      {"reset", resolved.reset},
      {"match", MatchJson(resolved.match)},
      {"matches", match.matches},
      {"reason", match.reason},
      {"includes", resolved.includes},
      {"items", out_items},
  };
}

}  // namespace rocmtune::api
