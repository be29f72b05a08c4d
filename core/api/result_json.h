// The result document of apply/set/unset/revert/reset (schema rocmtune.result.v1).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "boot/boot_image.h"
#include "plan/plan.h"

namespace rocmtune::api {

inline constexpr const char* kResultSchema = "rocmtune.result.v1";

// What happened to the plan. A check only plans; otherwise `changed` says whether a
// transaction committed and `regenerated` reports what the helper did (done/pending).
struct Outcome {
  bool check = true;
  bool changed = false;
  bool forced = false;  // --force: drift does not block (the run overwrites it)
  std::optional<std::string> transaction;
  std::optional<plan::Regen> initramfs, bootloader;  // unset: as the plan says
  std::vector<std::string> errors;
  // After a regeneration the helper ran: what the next boot's image carries (boot/boot_image.h).
  std::optional<boot::BootImageCheck> boot_image;
};

nlohmann::ordered_json ResultJson(const plan::Plan& plan, const Outcome& outcome);

}  // namespace rocmtune::api
