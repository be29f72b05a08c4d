// The helper's untrusted input: a plan document as it arrives on stdin, parsed strictly and
// then held to the allow-list against a copy of a world (reads only; nothing is written).
#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "detect/inventory.h"
#include "fuzz_support.h"
#include "helper/allow_list.h"
#include "plan/plan_json.h"
#include "sys/root.h"

using namespace rocmtune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchRoot world("rx5700xt");
  static const sys::Root root = *sys::Root::Open(world.path());
  static const detect::Inventory inventory = detect::Detect(root, {.use_libdrm = false});

  auto plan = plan::PlanFromJson(fuzz::AsText(data, size));
  if (!plan) return 0;
  (void)helper::CheckPlan(root, inventory, *plan);
  // What parses must print and parse again.
  auto again = plan::PlanFromJson(plan::PlanToJson(*plan).dump());
  if (!again) __builtin_trap();
  return 0;
}
