// The names a change's intent (plan::Intent) may carry, for the planner that writes them and the
// helper that re-checks them before the journal or the trial state keeps them: status, export,
// history and the Ansible role take the active profile from the journal's intents, so a name is
// held to the rules here, not taken as sent.
#pragma once

#include <span>
#include <string_view>

namespace rocmtune::plan {

// Where the admin's profiles live (profiles/profile_store.h), each NAME.toml.
inline constexpr std::string_view kAdminProfileDir = "etc/rocmtune/profiles";

// Profile names and item ids: lower-case letters, digits, '-', '_' and '.', not starting
// with '.' or '-', at most 64 bytes (a name becomes a file name).
bool ValidProfileName(std::string_view name);

// The built-in profiles' names (ROCMTUNE_PROFILES, CMakeLists.txt), as profiles::BuiltinProfiles()
// has them, for the layers below the profiles (the helper).
std::span<const std::string_view> BuiltinProfileNames();

// A journal transaction's id: its number in decimal (journal/journal.h).
bool IsTransactionId(std::string_view id);

}  // namespace rocmtune::plan
