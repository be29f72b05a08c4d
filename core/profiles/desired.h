// From a resolved profile to what should be true on this machine: the knob request for the
// planner, the advice to print, and why each other item is not applied. Does not plan.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "detect/inventory.h"
#include "plan/plan.h"
#include "planner/planner.h"
#include "profiles/profile.h"
#include "sys/root.h"

namespace rocmtune::profiles {

enum class Verdict { kApplies, kSkipped, kRefused };

struct ItemPlan {
  const Item* item = nullptr;  // into the profile given to EvaluateItems
  Verdict verdict = Verdict::kSkipped;
  std::string reason;                 // why it applies, or why not
  std::optional<knobs::KnobKey> key;  // for this machine (ttm -> amdttm under amdgpu-dkms)
  std::optional<std::string> value;   // placeholders expanded (kApplies only)
};

// Every item of `resolved` judged on this machine, in order. Optional items apply only when
// their id is in `with_optional`. When several applying items concern one key, the last
// wins and the earlier ones are skipped. The profile's own match is the caller's to check.
std::vector<ItemPlan> EvaluateItems(const Profile& resolved, const sys::Root& root, const detect::Inventory& inventory,
                                    const std::vector<std::string>& with_optional);

struct Desired {
  plan::Request request;
  std::vector<plan::Message> notes;
  std::vector<std::string> skipped;  // "ITEM-ID: why it is not applied here"
  // Items that should apply but cannot be computed here (no MemTotal for {gtt_pages}).
  // Like a planner refusal: nothing of the profile may be applied while this is non-empty.
  std::vector<plan::Message> refused;
  bool reset = false;  // remove everything rocmtune configured (the caller does it)
};

// Unknown `with_optional` ids, and ids of items that are not optional, are errors
// (kInvalidArgument).
Result<void> CheckWithOptional(const Profile& resolved, const std::vector<std::string>& with_optional);

// Fails as CheckWithOptional does.
Result<Desired> DesiredState(const Profile& resolved, const sys::Root& root, const detect::Inventory& inventory,
                             const std::vector<std::string>& with_optional);

}  // namespace rocmtune::profiles
