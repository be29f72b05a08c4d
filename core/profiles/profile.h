// A profile: a named, sourced set of knob settings and advice for one kind of machine
// (format: profiles/README.md). ParseProfile() checks one file on its own; includes are resolved
// by ProfileStore.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "knobs/knob_key.h"
#include "knowledge/family.h"
#include "plan/intent_names.h"
#include "util/result.h"

namespace rocmtune::profiles {

// Profiles are small; anything bigger is not one (and bounds what a hostile file costs).
inline constexpr size_t kMaxProfileBytes = 256 * 1024;

// Which GPUs something is for. A GPU satisfies a Match when it meets every criterion given;
// the machine matches when at least one GPU does (`all`: when every GPU does).
struct Match {
  std::vector<std::string> gfx;           // any of these gfx targets
  std::vector<knowledge::Family> family;  // any of these families
  std::optional<bool> apu;                // APU (true) or dGPU (false)
  bool all = false;

  bool operator==(const Match&) const = default;
};

enum class Action { kSet, kUnset, kNote };

std::string_view ActionName(Action action);

struct Item {
  std::string id;
  Action action = Action::kNote;
  std::optional<knobs::KnobKey> key;  // set and unset
  std::optional<std::string> value;   // set; may be a placeholder such as "{gtt_pages}"
  bool optional = false;              // applied only when asked for by id (--with ID)
  std::optional<Match> match;         // applies only on machines that match
  std::string why;                    // for a note: the advice itself
  std::string source;
  std::string from;  // the profile that defines it (differs once includes are resolved)
};

struct Profile {
  std::string name;
  std::string origin;  // "builtin" or the file it was read from
  std::string description;
  std::vector<std::string> includes;
  std::optional<Match> match;  // absent: any machine with an AMD GPU; not inherited through includes
  // Remove everything rocmtune configured (the caller implements it); such a profile has
  // only notes, no includes, matches every machine and cannot be included.
  bool reset = false;
  std::vector<Item> items;
};

// Profile names and item ids (plan/intent_names.h: the helper checks them too).
using plan::ValidProfileName;

// Strict: unknown keys, wrong types, missing fields and bad knob keys are errors that name
// the origin and the item. Never throws, whatever the bytes.
Result<Profile> ParseProfile(std::string_view name, std::string_view text, std::string_view origin);

}  // namespace rocmtune::profiles
