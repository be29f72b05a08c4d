#include "api/profiles.h"

#include "api/profiles_json.h"

namespace rocmtune::api {

ProfilesReport ListProfiles(const System& system) {
  ProfilesReport report{profiles::ProfileStore::Load(system.root), {}};
  report.listings = profiles::ListProfiles(report.store, system.inventory);
  return report;
}

Result<ShowReport> ShowProfile(const System& system, const std::string& name,
                               const std::vector<std::string>& with_optional) {
  ShowReport report{profiles::ProfileStore::Load(system.root), nullptr, {}, {}, {}};
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
  return ProfilesJson(report.listings, report.store.errors());
}

nlohmann::ordered_json ProfileJson(const ShowReport& report) {
  return ProfileJson(*report.entry, report.resolved, report.match, report.items);
}

}  // namespace rocmtune::api
