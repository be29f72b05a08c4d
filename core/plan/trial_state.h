// A trial boot's state (`--trial`): the file /var/lib/rocmtune/trial (schema rocmtune.trial.v1),
// written only by rocmtune-helper as an op of a journaled transaction, read by the trial verbs,
// the boot units, status/doctor/history and the helper's rule for the file. Plan data: the
// helper (below api) checks it and the core builds it, so it lives in this layer.
//
//   prepared --(the trial boot's check starts)--> booted --(check passes)--> confirmed
//            --(commit transaction)--> committed
//   prepared/booted --(check fails, or a boot without the trial token)--> failed --> cleaned
//   prepared/booted/confirmed/failed --(trial cancel, reset)--> cancelled
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "plan/plan.h"
#include "util/result.h"

namespace rocmtune::plan {

inline constexpr const char* kTrialSchema = "rocmtune.trial.v1";
// The token that marks the trial boot's command line, `rocmtune.trial=<id>`.
inline constexpr std::string_view kTrialTokenKey = "rocmtune.trial";
// Seconds the trial boot waits after a panic before it reboots into the old configuration
// (`panic=N`, Documentation/admin-guide/kernel-parameters.txt: "Timeout in seconds").
inline constexpr int kTrialPanicSeconds = 10;
// Far above a real state (a few KiB), far below anything that matters to the helper.
inline constexpr size_t kMaxTrialStateBytes = 64 * 1024;

enum class TrialPhase { kPrepared, kBooted, kConfirmed, kCommitted, kFailed, kCleaned, kCancelled };

std::string_view TrialPhaseName(TrialPhase phase);
std::optional<TrialPhase> ParseTrialPhase(std::string_view name);
// Prepared, booted or confirmed: a trial entry may exist and the next boot may be the trial.
bool IsPending(TrialPhase phase);

// A GPU bound to amdgpu when the trial was prepared, by PCI address.
struct TrialGpu {
  std::string pci;
  std::string driver;
};

struct TrialState {
  std::string id;       // 8 lowercase hex digits
  std::string created;  // RFC 3339 UTC
  std::string updated;  // the last change of `state`
  TrialPhase state = TrialPhase::kPrepared;
  // What the commit applies: verb apply/set/unset with the profile and --with items or the
  // keys and assignments as typed; `admin_lines` as --admin-lines, `force` as --force (the
  // commit overrides what the prepared change overrode: a profile that does not fit, drift).
  Intent request;
  bool admin_lines = false;
  bool force = false;
  // The trial boot's added tokens: the boot-affecting part, `panic=N`, `rocmtune.trial=<id>`.
  std::vector<std::string> tokens;
  std::string setup;  // detect::BootKindName of the boot setup
  std::string entry;  // root-relative path of the trial entry rocmtune wrote, "" when none
  // The baseline: the GPUs bound to amdgpu and check-compute's verdict before the trial.
  std::vector<TrialGpu> gpus_before;
  std::string verdict_before;
  // What the trial boot's check (or the boot after a failed trial) saw, one line each.
  std::vector<std::string> seen;
  std::string transaction;  // committed: the transaction that made the change permanent
};

nlohmann::ordered_json TrialStateToJson(const TrialState& state);
// Strict: unknown schema, a missing or mistyped field, an unknown state is an error.
Result<TrialState> ParseTrialState(std::string_view text);
// The file's content: the JSON document, indented, with a final newline.
std::string TrialStateText(const TrialState& state);
// `rocmtune.trial=<id>`
std::string TrialToken(std::string_view id);
bool IsTrialId(std::string_view id);

}  // namespace rocmtune::plan
