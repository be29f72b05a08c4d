// The trial state /var/lib/rocmtune/trial (plan/trial_state.h): read by the trial verbs, the boot
// units and status, and checked by the helper before it writes one (CheckTrialState).
// Invariants: what ParseTrialState reads prints (TrialStateText) and reads back to the same state,
// and the printed text is a fixed point; the helper never accepts a file the readers refuse.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_support.h"
#include "helper/rules.h"
#include "plan/trial_state.h"

using namespace rocmtune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::AsText(data, size);
  auto state = plan::ParseTrialState(text);
  if (helper::CheckTrialState(text) && !state) __builtin_trap();
  if (!state) return 0;
  const std::string printed = plan::TrialStateText(*state);
  auto again = plan::ParseTrialState(printed);
  if (!again) __builtin_trap();
  if (plan::TrialStateToJson(*again) != plan::TrialStateToJson(*state)) __builtin_trap();
  if (plan::TrialStateText(*again) != printed) __builtin_trap();
  return 0;
}
