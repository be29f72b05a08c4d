// `profiles` and `show`: every profile with its origin and whether it fits this machine, and
// one profile resolved with what each item would do here.
#pragma once

#include <string>
#include <vector>

#include "api/system.h"
#include "profiles/desired.h"
#include "profiles/match.h"
#include "profiles/profile_store.h"

namespace rocmtune::api {

struct ProfilesReport {
  profiles::ProfileStore store;
  std::vector<profiles::Listing> listings;  // point into `store`: move the report, never copy it
};

ProfilesReport ListProfiles(const System& system);

struct ShowReport {
  profiles::ProfileStore store;
  const profiles::StoreEntry* entry = nullptr;  // into `store`
  profiles::Profile resolved;
  profiles::MatchResult match;
  std::vector<profiles::ItemPlan> items;  // point into `resolved`: move the report, never copy it
};

// kNotFound: no such profile; kInvalidArgument: an unknown --with item; kInvalidData: the
// profile cannot be resolved (bad TOML, include cycle...). Items of a profile that does not
// fit the machine are skipped, whatever their own match.
Result<ShowReport> ShowProfile(const System& system, const std::string& name,
                               const std::vector<std::string>& with_optional);

nlohmann::ordered_json ProfilesJson(const ProfilesReport& report);
nlohmann::ordered_json ProfileJson(const ShowReport& report);

}  // namespace rocmtune::api
