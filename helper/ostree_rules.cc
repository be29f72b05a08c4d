// rpm-ostree's command lines (plan/rpm_ostree_argv.h): the only forms the helper runs it with.
// rpm-ostree is not in Debian; the forms are those of its CLI (coreos/rpm-ostree
// src/app/rpmostree-builtin-kargs.cxx, -initramfs-etc.cxx, man/rpm-ostree.xml).
#include <fmt/format.h>

#include "helper/allow_list.h"
#include "helper/rules.h"
#include "knobs/cmdline_tokens.h"
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
      if (auto ok = knobs::ValidateToken(value); !ok)
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

}  // namespace rocmtune::helper
