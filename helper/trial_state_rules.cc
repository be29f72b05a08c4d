// The trial state file (/var/lib/rocmtune/trial, plan/trial_state.h): a strict rocmtune.trial.v1
// document whose tokens are ones the helper would put on a command line itself. The boot units
// read the file as root and the commit applies the request it holds, so what a plan may write
// there is held to the same rules as the entry and the change it stands for.
#include <charconv>

#include <fmt/format.h>

#include "detect/boot_setup.h"
#include "detect/pci_address.h"
#include "helper/allow_list.h"
#include "helper/rules.h"
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
  }
  return {};
}

}  // namespace rocmtune::helper
