// The profile documents: `rocmtunectl profiles --json` (rocmtune.profiles.v1) and
// `rocmtunectl show NAME --json` (rocmtune.profile.v1). Unknown values are null.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "profiles/desired.h"
#include "profiles/match.h"
#include "profiles/profile_store.h"

namespace rocmtune::api {

inline constexpr const char* kProfilesSchema = "rocmtune.profiles.v1";
inline constexpr const char* kProfileSchema = "rocmtune.profile.v1";

// {"schema", "profiles": [{name, origin, overrides_builtin, description, reset, matches, reason,
// error}], "errors": [...]}; a broken profile has error set and null description/matches.
nlohmann::ordered_json ProfilesJson(const std::vector<profiles::Listing>& listings,
                                    const std::vector<std::string>& store_errors);

// One resolved profile with, per item, what it does on this machine ("here").
nlohmann::ordered_json ProfileJson(const profiles::StoreEntry& entry, const profiles::Profile& resolved,
                                   const profiles::MatchResult& match, const std::vector<profiles::ItemPlan>& items);

std::string_view VerdictName(profiles::Verdict verdict);

}  // namespace rocmtune::api
