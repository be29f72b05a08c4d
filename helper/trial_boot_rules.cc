// Trial boots (boot/trial_boot.h): the entry files and the one-shot switches, and nothing
// more. An entry is a boot menu entry, GRUB script or a BLS entry that picks a kernel and its
// command line, so its content is not checked line by line: the helper renders the entry again
// from the files on disk for the trial its header names, and the two must be the same bytes.
// The trial's tokens are each a token rocmtune may add (kernel_token_rules.cc) or one of the
// trial's own two (panic=N, rocmtune.trial=<id>).
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "boot/trial_boot.h"
#include "detect/boot_setup.h"
#include "helper/allow_list.h"
#include "helper/rules.h"
#include "util/text.h"

namespace rocmtune::helper {
namespace {

using Args = std::span<const std::string>;

// panic=N: the kernel reboots N seconds after a panic (Documentation/admin-guide/
// kernel-parameters.txt); a trial needs a positive N (0 waits forever, < 0 reboots at once).
constexpr uint64_t kMaxPanicSeconds = 3600;

Result<void> CheckTrialToken(std::string_view token) {
  if (token.starts_with("panic=")) {
    auto n = text::ParseU64(token.substr(6));
    if (!n || *n == 0 || *n > kMaxPanicSeconds)
      return Refuse(rule::kTrialEntry, fmt::format("'{}': panic= takes 1 to {} seconds", token, kMaxPanicSeconds));
    return {};
  }
  if (token.starts_with(boot::kTrialIdKey)) return {};  // its form: boot::CheckTrialTokens
  return CheckAddedToken(token);
}

Result<void> SetOrUnsetNextEntry(Args args) {
  const std::string set = fmt::format("next_entry={}", boot::kTrialEntryId);
  if (args.size() == 2 && args[0] == "set" && args[1] == set) return {};
  if (args.size() == 2 && args[0] == "unset" && args[1] == "next_entry") return {};
  return Refuse(rule::kRegenArgv, fmt::format("only `set {}` and `unset next_entry` are allowed", set));
}

}  // namespace

bool IsTrialEntryPath(std::string_view path) {
  if (path == boot::kGrubTrialEntryPath || path == boot::kBlsTrialEntryPath) return true;
  auto paths = boot::SdBootTrialEntryPaths();
  return std::find(paths.begin(), paths.end(), path) != paths.end();
}

Result<void> CheckTrialEntryWrite(const sys::Root& root, const plan::Op& op) {
  auto trial = boot::ParseTrialHeader(*op.after);
  if (!trial) return Refuse(rule::kTrialEntry, "the entry does not start with rocmtune's `# rocmtune-trial` line");
  if (auto ok = boot::CheckTrialTokens(trial->tokens); !ok) return Refuse(rule::kTrialEntry, ok.error().message);
  for (const std::string& t : trial->tokens)
    if (auto ok = CheckTrialToken(t); !ok) return ok;
  auto kind = detect::DetectBootSetup(root).kind;
  if (!kind) return Refuse(rule::kTrialEntry, "the boot setup is unknown");
  auto expected = boot::RenderTrialEntry(root, *kind, op.path, *trial);
  if (!expected) return Refuse(rule::kTrialEntry, expected.error().message);
  if (*expected != *op.after)
    return Refuse(rule::kTrialEntry,
                  "the entry is not the default entry with the trial's tokens as rocmtune renders it from the files "
                  "on disk (stale plan?)");
  return {};
}

// grub-editenv /boot/grub/grubenv set next_entry=rocmtune-trial | unset next_entry
Result<void> GrubEditenvArgs(Args args) {
  const std::string env = fmt::format("/{}", boot::kGrubEnvPath);
  if (args.empty() || args[0] != env) return Refuse(rule::kRegenArgv, fmt::format("grub-editenv edits only {}", env));
  return SetOrUnsetNextEntry(args.subspan(1));
}

// grub2-editenv - set next_entry=rocmtune-trial | unset next_entry ('-': its default grubenv)
Result<void> Grub2EditenvArgs(Args args) {
  if (args.empty() || args[0] != "-")
    return Refuse(rule::kRegenArgv, "grub2-editenv edits only its default file (`-`)");
  return SetOrUnsetNextEntry(args.subspan(1));
}

// bootctl set-oneshot rocmtune-trial.conf | set-oneshot "" (removes LoaderEntryOneShot)
Result<void> BootctlArgs(Args args) {
  if (args.size() == 2 && args[0] == "set-oneshot" && (args[1] == boot::kTrialEntryFile || args[1].empty())) return {};
  return Refuse(rule::kRegenArgv,
                fmt::format("bootctl runs only as `bootctl set-oneshot {}` or `bootctl set-oneshot \"\"`",
                            boot::kTrialEntryFile));
}

}  // namespace rocmtune::helper
