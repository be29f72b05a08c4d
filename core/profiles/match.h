// Does a profile (or one of its items) fit this machine, and why (or why not), in words a
// person can check against `rocmtunectl status`.
#pragma once

#include <string>

#include "detect/inventory.h"
#include "profiles/profile.h"

namespace rocmtune::profiles {

struct MatchResult {
  bool matches = false;
  std::string reason;  // "matches gfx1010 on 0000:03:00.0" / "no GPU is gfx1010, gfx1011 (this machine: gfx1030)"
};

// What a match asks for, for people: "gfx1010, gfx1011", "RDNA2 and a dGPU (every GPU)".
std::string MatchText(const Match& match);

MatchResult MatchInventory(const Match& match, const detect::Inventory& inventory);

// A profile without [match] fits any machine with an AMD GPU; a reset profile fits every machine.
MatchResult MatchProfile(const Profile& profile, const detect::Inventory& inventory);

// An item without its own match always applies (the profile's match was checked already).
MatchResult MatchItem(const Item& item, const detect::Inventory& inventory);

}  // namespace rocmtune::profiles
