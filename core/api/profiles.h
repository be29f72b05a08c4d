// `profiles` and `show`: every profile with its origin and whether it fits this machine, and
// one profile resolved with what each item would do here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/system.h"
#include "profiles/desired.h"
#include "profiles/match.h"
#include "profiles/profile_store.h"

namespace rocmtune::api {

// The active profile as the journal tells it: "" when none is; nullopt when this user may not
// read the journal (System::journal_known), with `active_note` saying so.
struct ActiveProfile {
  std::optional<std::string> name;
  std::string note;
};
ActiveProfile ActiveProfileOf(const System& system);

struct ProfilesReport {
  profiles::ProfileStore store;
  std::vector<profiles::Listing> listings;  // point into `store`: move the report, never copy it
  ActiveProfile active = {};
};

ProfilesReport ListProfiles(const System& system);

struct ShowReport {
  profiles::ProfileStore store;
  const profiles::StoreEntry* entry = nullptr;  // into `store`
  profiles::Profile resolved;
  profiles::MatchResult match;
  std::vector<profiles::ItemPlan> items;  // point into `resolved`: move the report, never copy it
  ActiveProfile active = {};
};

// kNotFound: no such profile; kInvalidArgument: an unknown --with item; kInvalidData: the
// profile cannot be resolved (bad TOML, include cycle...). Items of a profile that does not
// fit the machine are skipped, whatever their own match.
Result<ShowReport> ShowProfile(const System& system, const std::string& name,
                               const std::vector<std::string>& with_optional);

// rocmtune.profiles.v1 / rocmtune.profile.v1 (api/profiles_json.h) with the active profile:
// "active_profile" (the name, or null when none is active or it is unknown), "active" per
// profile (true, false, or null: unknown to this user) and "notes" saying why it is unknown.
nlohmann::ordered_json ProfilesJson(const ProfilesReport& report);
nlohmann::ordered_json ProfileJson(const ShowReport& report);

}  // namespace rocmtune::api
