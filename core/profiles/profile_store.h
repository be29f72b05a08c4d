// Every profile rocmtune knows: the built-ins compiled in, and the administrator's files in
// <root>/etc/rocmtune/profiles/NAME.toml, which replace a built-in of the same name. A bad
// file is kept as an entry with its error, so it never hides the other profiles.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "detect/inventory.h"
#include "profiles/match.h"
#include "profiles/profile.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::profiles {

using plan::kAdminProfileDir;
inline constexpr std::string_view kBuiltinOrigin = "builtin";
// An admin file may replace it, but only with another reset profile.
inline constexpr std::string_view kStockProfile = "stock";

struct BuiltinProfile {
  std::string_view name;
  std::string_view text;
};

// profiles/*.toml as compiled into the library.
std::span<const BuiltinProfile> BuiltinProfiles();

struct StoreEntry {
  std::string name;
  std::string origin;       // kBuiltinOrigin, or the admin file as Root::Display shows it
  Result<Profile> profile;  // as parsed (includes not resolved), or why the file is unusable
  bool overrides_builtin = false;
};

class ProfileStore {
 public:
  static ProfileStore Load(const sys::Root& root);
  // For tests: other built-ins.
  static ProfileStore Load(const sys::Root& root, std::span<const BuiltinProfile> builtins);

  // Sorted by name, one entry per name.
  const std::vector<StoreEntry>& entries() const { return entries_; }
  // Problems that are not one file's (the admin directory could not be listed).
  const std::vector<std::string>& errors() const { return errors_; }

  const StoreEntry* Find(std::string_view name) const;

  // The profile with its includes applied, depth-first in include order: included items
  // come first; an item replaces earlier ones with the same id, and a profile's items
  // replace included items on the same knob key. Missing or bad includes, cycles and
  // including a reset profile are errors.
  Result<Profile> Resolve(std::string_view name) const;

 private:
  // One profile's items with its includes applied, and how many include levels lie below it.
  struct Resolved {
    std::vector<Item> items;
    size_t height = 0;
  };
  // Within one Resolve, each profile is resolved once: includes may share profiles (a diamond,
  // or the same name listed twice), and without this the work grows with the number of paths.
  using Memo = std::map<std::string, Resolved, std::less<>>;
  Result<Resolved> ResolveItems(std::string_view name, std::vector<std::string>& stack, Memo& memo) const;

  std::vector<StoreEntry> entries_;
  std::vector<std::string> errors_;
};

// One line of `rocmtunectl profiles`: each entry resolved (so include problems show) and
// matched against the machine.
struct Listing {
  const StoreEntry* entry = nullptr;  // into the store
  Result<Profile> resolved;
  MatchResult match;  // when resolved
};

std::vector<Listing> ListProfiles(const ProfileStore& store, const detect::Inventory& inventory);

}  // namespace rocmtune::profiles
