#include "boot/kernelstub_setup.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "boot/cmdline_tokens.h"
#include "boot/kernelstub_config.h"
#include "boot/loader_entries.h"
#include "boot/trial_setups.h"
#include "plan/owned_paths.h"
#include "plan/plan.h"
#include "util/text.h"

namespace rocmtune::boot {
namespace {

bool HasKernelstub(const sys::Root& root) {
  return root.Exists("usr/bin/kernelstub") || root.Exists("bin/kernelstub") || root.Exists("usr/sbin/kernelstub");
}

NextBoot Unknown(std::string why) {
  NextBoot next;
  next.why_unknown = std::move(why);
  return next;
}

// The entry kernelstub wrote last ($ESP/loader/entries/Pop_OS-current.conf; loader.conf's
// `default Pop_OS-current` names it), when this process can read it.
std::optional<std::pair<std::string, std::string>> CurrentEntry(const sys::Root& root) {
  auto def = FindDefaultLoaderEntry(root);
  if (!def) return std::nullopt;
  auto content = ReadOptional(root, def->path);
  if (!content) return std::nullopt;
  return std::pair{def->path, *content};
}

// The trial entry is a copy of Pop_OS-current.conf booted once through LoaderEntryOneShot, as
// on any systemd-boot: kernelstub writes only <OS>-current.conf and <OS>-oldkern.conf (and
// loader.conf when it is missing), never another entry, so the copy stays; its `linux` path is
// the one kernelstub keeps current. The stored change is then made with kernelstub -a.
class KernelstubSetup final : public SdBootTrialSetup {
 public:
  detect::BootKind Kind() const override { return detect::BootKind::kKernelstub; }
  std::vector<SetupFile> FilesRead() const override { return {{kKernelstubConfigPath, ""}}; }

  NextBoot ReadNextBoot(const BootContext& ctx) const override {
    auto content = ReadOptional(ctx.root, kKernelstubConfigPath);
    if (!content) return Unknown(fmt::format("/{} is missing or unreadable", kKernelstubConfigPath));
    auto config = ParseKernelstubConfig(*content);
    if (!config) return Unknown(config.error().message);
    NextBoot next;
    next.cmdline = std::string();
    for (const KernelstubOption& o : config->options) {
      next.cmdline->append(next.cmdline->empty() ? "" : " ").append(o.token);
      AddNextBootTokens(kKernelstubConfigPath, o.line, o.token, next.tokens);
    }
    // The entry boots until kernelstub writes it again (a kernel or initramfs update, any run):
    // where it differs, the knob says so (cmdline_backend.cc, later_file).
    if (auto entry = CurrentEntry(ctx.root)) {
      next.later_file = entry->first;
      for (const auto& [line, options] : LoaderEntryOptions(entry->second))
        AddNextBootTokens(entry->first, line, options, next.later_tokens);
    }
    return next;
  }

  std::vector<std::pair<std::string, std::string>> EditedCmdlines(const BootContext& ctx) const override {
    std::vector<std::pair<std::string, std::string>> out;
    const NextBoot& next = ReadNextBoot(ctx);
    if (next.cmdline) out.emplace_back(std::string(kKernelstubConfigPath), *next.cmdline);
    return out;
  }

  // `kernelstub -d` is a set difference (application.py: list(set(kernel_opts) - set(rem_opts))),
  // and `-a` appends: the admin's token put back would come last, and their other options in
  // another order. Changing their token is theirs to do.
  std::optional<std::string> RefuseReplacing(const BootContext& /*ctx*/, std::string_view token) const override {
    return fmt::format(
        "kernelstub's options have the admin's {}; rocmtune changes them only with kernelstub -a/-d, which cannot put "
        "{} back where it was, so rocmtune leaves it: change it with kernelstub yourself",
        token, token);
  }

  void PlanChange(const BootContext& ctx, const CmdlineChange& change, plan::Plan& plan) const override {
    const NextBoot& next = ReadNextBoot(ctx);
    if (!next.cmdline) {
      plan.refused.push_back({"", fmt::format("kernelstub's options are unknown: {}", next.why_unknown), ""});
      return;
    }
    if (!HasKernelstub(ctx.root)) {
      plan.refused.push_back({"", "kernelstub is not installed (/usr/bin/kernelstub)", ""});
      return;
    }
    const std::vector<std::string> now = SplitCmdline(*next.cmdline);
    auto has = [&](const std::string& t) { return std::find(now.begin(), now.end(), t) != now.end(); };
    // What goes: rocmtune's token of each removed key, and of each key given another value.
    std::vector<std::string> remove, add;
    for (const OwnedToken& owned : Owned(ctx)) {
      std::string_view key = TokenKey(owned.token);
      bool removed = std::any_of(change.remove.begin(), change.remove.end(),
                                 [&](const std::string& k) { return SameKey(k, key); });
      bool replaced = std::any_of(change.add.begin(), change.add.end(),
                                  [&](const std::string& t) { return SameKey(TokenKey(t), key) && t != owned.token; });
      // Also where a run of `-a` is still pending (a tree, not the running system): -d of an
      // option kernelstub does not have changes nothing, and the record and the runs agree.
      if (removed || replaced) remove.push_back(owned.token);
    }
    // kernelstub -a appends only what is not there (application.py): a token already there is not
    // added, so undoing the run (-d) never takes away one that was there before.
    for (const std::string& t : change.add)
      if (!has(t) && std::find(add.begin(), add.end(), t) == add.end()) add.push_back(t);
    if (!remove.empty())
      plan.ops.push_back(RegenOp(plan::Regenerator::kKernelstub, {"-d", fmt::format("{}", fmt::join(remove, " "))},
                                 "kernelstub removes rocmtune's options and writes the boot entries again"));
    if (!add.empty())
      plan.ops.push_back(RegenOp(plan::Regenerator::kKernelstub, {"-a", fmt::format("{}", fmt::join(add, " "))},
                                 "kernelstub adds the options to its configuration and writes the boot entries again"));
    if (!remove.empty() || !add.empty()) plan.bootloader = plan::Regen::kPending;
    AddFileOp(ctx, plan::BackendId::kCmdline, plan::kCmdlineTokensState, change.state,
              "what rocmtune added, so it removes only that", plan);
  }
};

}  // namespace

const Setup& KernelstubCmdlineSetup() {
  static const KernelstubSetup kSetup;
  return kSetup;
}

}  // namespace rocmtune::boot
