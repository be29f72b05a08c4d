// rpm-ostree's command lines (plan/rpm_ostree_argv.h): the only forms the helper runs it with.
// rpm-ostree is not in Debian; the forms are those of its CLI (coreos/rpm-ostree
// src/app/rpmostree-builtin-kargs.cxx, -initramfs-etc.cxx, man/rpm-ostree.xml).
#include <algorithm>

#include <fmt/format.h>

#include "boot/cmdline_tokens.h"
#include "helper/allow_list.h"
#include "helper/rules.h"
#include "plan/bootc_argv.h"
#include "plan/owned_paths.h"
#include "plan/rpm_ostree_argv.h"

namespace rocmtune::helper {

// `kargs` then one or more arguments of one flag: --append=TOKEN (a token rocmtune may add),
// --delete=TOKEN (one it may remove), --replace=KEY=OLD=NEW (KEY=OLD removed, KEY=NEW added, no
// '=' in KEY or OLD or NEW so that the undo K=NEW=OLD is the same split).
Result<void> RpmOstreeKargsArgs(std::span<const std::string> args) {
  if (args.size() < 2 || args[0] != plan::kKargs)
    return Refuse(rule::kRegenArgv, "rpm-ostree kargs runs as `rpm-ostree kargs --append=|--delete=|--replace=...`");
  std::string_view flag;
  for (std::string_view f : {plan::kKargsAppend, plan::kKargsDelete, plan::kKargsReplace})
    if (std::string_view(args[1]).starts_with(f)) flag = f;
  if (flag.empty())
    return Refuse(rule::kRegenArgv, fmt::format("'{}' is not --append=, --delete= or --replace=", args[1]));
  for (std::string_view a : args.subspan(1)) {
    if (!a.starts_with(flag))
      return Refuse(rule::kRegenArgv, fmt::format("one rpm-ostree kargs call takes only {} arguments", flag));
    std::string_view value = a.substr(flag.size());
    if (value.empty()) return Refuse(rule::kRegenArgv, fmt::format("an empty {}", flag));
    if (flag == plan::kKargsAppend) {
      if (auto ok = CheckAddedToken(value); !ok) return ok;
    } else if (flag == plan::kKargsDelete) {
      if (auto ok = CheckRemovedToken(value); !ok) return ok;
      if (auto ok = boot::ValidateToken(value); !ok)
        return Refuse(rule::kRegenArgv, fmt::format("'{}': {}", value, ok.error().message));
    } else {
      auto r = plan::ParseKargsReplace(value);
      if (!r || r->key.empty() || r->old_value.empty() || r->new_value.empty() ||
          r->new_value.find('=') != std::string::npos)
        return Refuse(rule::kRegenArgv, fmt::format("'{}' is not KEY=OLDVALUE=NEWVALUE", value));
      std::string old_token = fmt::format("{}={}", r->key, r->old_value);
      if (auto ok = CheckRemovedToken(old_token); !ok) return ok;
      // The admin's token put back (an undo) must be one rocmtune may write, like the new one.
      if (auto ok = CheckAddedToken(old_token); !ok) return ok;
      if (auto ok = CheckAddedToken(fmt::format("{}={}", r->key, r->new_value)); !ok) return ok;
    }
  }
  return {};
}

// `initramfs-etc` with --track=/FILE or --untrack=/FILE of rocmtune's modprobe.d drop-in, or
// --force-sync; one argument.
Result<void> RpmOstreeInitramfsEtcArgs(std::span<const std::string> args) {
  const std::string file = fmt::format("/{}", plan::kModprobeDropIn);
  if (args.size() == 2 && args[0] == plan::kInitramfsEtc &&
      (args[1] == plan::kForceSync || args[1] == fmt::format("{}{}", plan::kTrack, file) ||
       args[1] == fmt::format("{}{}", plan::kUntrack, file)))
    return {};
  return Refuse(rule::kRegenArgv, fmt::format("rpm-ostree initramfs-etc runs only with --track={}, --untrack={} or {}",
                                              file, file, plan::kForceSync));
}

namespace {

// Space-separated tokens as the bootc setup joins them: one space between, none at the ends.
Result<void> CheckBootcOptions(std::string_view options, std::string_view what) {
  if (options.empty()) return {};
  if (options.front() == ' ' || options.back() == ' ' || options.find("  ") != std::string_view::npos)
    return Refuse(rule::kRegenArgv, fmt::format("{} '{}' is not tokens separated by one space", what, options));
  for (size_t start = 0; start <= options.size();) {
    size_t sp = std::min(options.find(' ', start), options.size());
    if (auto ok = CheckAddedToken(options.substr(start, sp - start)); !ok) return ok;
    start = sp + 1;
  }
  return {};
}

}  // namespace

// bootc's argv (plan/bootc_argv.h): its --options are tokens rocmtune may add, and so are those
// of `before`, which a revert or rollback sets again (bootc-dev/bootc crates/lib/src/cli.rs
// SetOptionsForSourceOpts: --source NAME, --options OPTIONS optional).
Result<void> BootcOp(const plan::Op& op) {
  auto options = plan::BootcArgvOptions(std::span(op.argv).subspan(1));
  if (!options)
    return Refuse(rule::kRegenArgv,
                  "bootc runs only as `bootc loader-entries set-options-for-source --source rocmtune [--options ...]`");
  if (!op.before) return Refuse(rule::kOpShape, "a bootc op carries the options it replaces (before), for its undo");
  if (auto ok = CheckBootcOptions(*options, "--options"); !ok) return ok;
  return CheckBootcOptions(*op.before, "the options before");
}

}  // namespace rocmtune::helper
