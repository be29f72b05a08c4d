// The trial state file (/var/lib/rocmtune/trial, plan/trial_state.h): a strict rocmtune.trial.v1
// document whose tokens are ones the helper would put on a command line itself. The boot units
// read the file as root and the commit applies the request it holds, so what a plan may write
// there is held to the same rules as the entry and the change it stands for.
#include <algorithm>
#include <array>
#include <charconv>

#include <fmt/format.h>

#include "detect/boot_setup.h"
#include "detect/pci_address.h"
#include "helper/allow_list.h"
#include "helper/rules.h"
#include "plan/intent_names.h"
#include "plan/trial_state.h"

namespace rocmtune::helper {
namespace {

// `panic=N`: a positive number of seconds (0 waits forever, a negative value reboots at once).
bool IsPanicToken(std::string_view token) {
  constexpr std::string_view kKey = "panic=";
  if (!token.starts_with(kKey)) return false;
  std::string_view n = token.substr(kKey.size());
  int seconds = 0;
  auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), seconds);
  return ec == std::errc() && end == n.data() + n.size() && seconds > 0 && seconds <= 600;
}

// A kernel driver's name as /sys/bus/pci/devices/*/driver links to it ("amdgpu", "vfio-pci"), or "".
bool IsDriverName(std::string_view name) {
  return name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
         });
}

// api/trial.cc TrialNow(): "2026-11-27T10:00:00Z".
bool IsUtcTime(std::string_view t) {
  constexpr std::string_view kShape = "dddd-dd-ddTdd:dd:ddZ";
  if (t.size() != kShape.size()) return false;
  for (size_t i = 0; i < t.size(); ++i)
    if (kShape[i] == 'd' ? (t[i] < '0' || t[i] > '9') : t[i] != kShape[i]) return false;
  return true;
}

// check-compute's verdicts (api/trial_internal.h ComputeVerdict).
constexpr std::array<std::string_view, 4> kVerdicts = {"safe", "unsafe", "no-gpu", "unknown"};
// A check writes a line per GPU, per token and a few more; each line is a sentence with a
// quoted kernel log line of at most 200 bytes, or an admin check's error with its path.
constexpr size_t kMaxSeenLines = 256;
constexpr size_t kMaxSeenBytes = 4096;

}  // namespace

Result<void> CheckTrialState(std::string_view content) {
  auto state = plan::ParseTrialState(content);
  if (!state) return Refuse(rule::kOwnedGrammar, state.error().message);
  if (!state->setup.empty() && !detect::ParseBootKind(state->setup))
    return Refuse(rule::kOwnedGrammar, fmt::format("unknown boot setup \"{}\"", state->setup));
  if (!state->entry.empty())
    if (auto ok = CheckPathSyntax(state->entry); !ok) return ok;
  bool id_token = false;
  for (const std::string& token : state->tokens) {
    if (token == plan::TrialToken(state->id)) {
      id_token = true;
      continue;
    }
    if (IsPanicToken(token)) continue;
    if (auto ok = CheckAddedToken(token); !ok) return ok;
  }
  if (!id_token) return Refuse(rule::kOwnedGrammar, "the tokens must carry rocmtune.trial=<id> of this trial");
  for (const plan::TrialGpu& gpu : state->gpus_before) {
    auto pci = detect::ParsePciAddress(gpu.pci);
    if (!pci || pci->ToString() != gpu.pci)
      return Refuse(rule::kOwnedGrammar, fmt::format("\"{}\" is not a PCI address", gpu.pci));
    if (!IsDriverName(gpu.driver))
      return Refuse(rule::kOwnedGrammar, fmt::format("\"{}\" is not a driver's name", Printable(gpu.driver, 64)));
  }
  // The free text `rocmtunectl trial`, status and the boot units show (intent_rules.cc).
  if (auto ok = CheckIntent(state->request); !ok) return ok;
  for (const std::string* time : {&state->created, &state->updated})
    if (!IsUtcTime(*time))
      return Refuse(rule::kOwnedGrammar,
                    fmt::format("\"{}\" is not a time YYYY-MM-DDTHH:MM:SSZ", Printable(*time, 64)));
  if (!state->transaction.empty() && !plan::IsTransactionId(state->transaction))
    return Refuse(rule::kOwnedGrammar,
                  fmt::format("transaction \"{}\" is not a transaction id", Printable(state->transaction, 64)));
  if (std::find(kVerdicts.begin(), kVerdicts.end(), state->verdict_before) == kVerdicts.end())
    return Refuse(rule::kOwnedGrammar, fmt::format("verdict \"{}\" is not one of {}",
                                                   Printable(state->verdict_before, 64), fmt::join(kVerdicts, ", ")));
  if (state->seen.size() > kMaxSeenLines)
    return Refuse(rule::kOwnedGrammar, fmt::format("more than {} lines seen", kMaxSeenLines));
  for (const std::string& line : state->seen)
    if (auto ok = CheckFreeText(line, kMaxSeenBytes, "a line seen"); !ok) return ok;
  return {};
}

}  // namespace rocmtune::helper
