#include "api/profiles.h"

#include <nlohmann/json.hpp>

#include "api/profiles_json.h"
#include "journal/history.h"

namespace rocmtune::api {
namespace {

using json = nlohmann::ordered_json;

json ActiveJson(const ActiveProfile& active, const std::string& name) {
  return active.name ? json(*active.name == name) : json(nullptr);
}

json NotesJson(const ActiveProfile& active) {
  json notes = json::array();
  if (!active.note.empty()) notes.push_back(active.note);
  return notes;
}

}  // namespace

ActiveProfile ActiveProfileOf(const System& system) {
  if (!system.journal_known) return {std::nullopt, system.journal_note};
  return {journal::ActiveProfile(system.journal), ""};
}

ProfilesReport ListProfiles(const System& system) {
  ProfilesReport report{profiles::ProfileStore::Load(system.root), {}, ActiveProfileOf(system)};
  report.listings = profiles::ListProfiles(report.store, system.inventory);
  return report;
}

Result<ShowReport> ShowProfile(const System& system, const std::string& name,
                               const std::vector<std::string>& with_optional) {
  ShowReport report{profiles::ProfileStore::Load(system.root), nullptr, {}, {}, {}, ActiveProfileOf(system)};
  report.entry = report.store.Find(name);
  auto resolved = report.store.Resolve(name);
  if (!resolved) return Fail(report.entry ? ErrorCode::kInvalidData : ErrorCode::kNotFound, resolved.error().message);
  if (auto ok = profiles::CheckWithOptional(*resolved, with_optional); !ok)
    return Fail(ErrorCode::kInvalidArgument, ok.error().message);
  report.resolved = std::move(*resolved);
  report.match = profiles::MatchProfile(report.resolved, system.inventory);
  report.items = profiles::EvaluateItems(report.resolved, system.root, system.inventory, with_optional);
  if (!report.match.matches) {
    for (profiles::ItemPlan& ip : report.items) {
      ip.verdict = profiles::Verdict::kSkipped;
      ip.reason = "the profile does not fit this machine";
      ip.value.reset();
    }
  }
  return report;
}

nlohmann::ordered_json ProfilesJson(const ProfilesReport& report) {
  json doc = ProfilesJson(report.listings, report.store.errors());
  for (json& row : doc["profiles"]) row["active"] = ActiveJson(report.active, row["name"].get<std::string>());
  const std::optional<std::string>& name = report.active.name;
  doc["active_profile"] = name && !name->empty() ? json(*name) : json(nullptr);
  doc["notes"] = NotesJson(report.active);
  return doc;
}

nlohmann::ordered_json ProfileJson(const ShowReport& report) {
  json doc = ProfileJson(*report.entry, report.resolved, report.match, report.items);
  doc["active"] = ActiveJson(report.active, report.resolved.name);
  doc["notes"] = NotesJson(report.active);
  return doc;
}

}  // namespace rocmtune::api
