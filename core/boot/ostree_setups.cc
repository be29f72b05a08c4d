#include "boot/ostree_setups.h"

#include <string.h>

#include <algorithm>

#include <fmt/format.h>

#include "boot/bootc_version.h"
#include "boot/cmdline_tokens.h"
#include "boot/next_boot.h"
#include "boot/trial_setups.h"
#include "detect/ostree_boot.h"
#include "plan/bootc_argv.h"
#include "plan/owned_paths.h"
#include "plan/rpm_ostree_argv.h"
#include "sys/staged_deployment.h"
#include "util/text.h"

namespace rocmtune::boot {
namespace {

constexpr std::string_view kOstreeEntriesDir = "boot/loader/entries";
constexpr std::string_view kOstreeKargsReason =
    "rpm-ostree makes a new deployment with these kernel arguments: the default from the next boot on";
constexpr std::string_view kOstreeStateReason = "what rocmtune added or replaced, so it undoes only that";
// bootc's loader_entries.rs: OPTIONS_SOURCE_KEY_PREFIX and a source name of [A-Za-z0-9_-].
constexpr std::string_view kBootcSourceKey = "x-options-source-rocmtune";
constexpr std::string_view kBootcReason =
    "bootc stages a new deployment with rocmtune's own kernel arguments (its source): the default from the next "
    "boot on";

// The value of a BLS entry's `key` line ("key value"); nullopt: none.
std::optional<std::string> OstreeEntryValue(std::string_view content, std::string_view key) {
  std::optional<std::string> out;
  for (std::string_view line : text::SplitLines(content)) {
    line = text::Trim(line);
    if (!line.starts_with(key) || line.size() == key.size() || (line[key.size()] != ' ' && line[key.size()] != '\t'))
      continue;
    out = std::string(text::Trim(line.substr(key.size())));
  }
  return out;
}

// The deployment directory of the default entry (its `ostree=` argument), for its origin.
std::optional<std::string> OstreeDefaultDeployment(const BootContext& ctx) {
  auto entry = OstreeDefaultEntry(ctx.root);
  if (!entry) return std::nullopt;
  auto content = ReadOptional(ctx.root, *entry);
  if (!content) return std::nullopt;
  for (const std::string& t : SplitCmdline(OstreeEntryValue(*content, "options").value_or("")))
    if (t.starts_with("ostree=")) return detect::DeploymentDir(ctx.root, std::string_view(t).substr(7));
  return std::nullopt;
}

// ostree has no one-shot boot of one deployment: `ostree admin set-default` and `rpm-ostree
// rollback` change the default for every later boot, and its boot counting (entries named
// ostree-N+TRIES.conf, ostree-sysroot-deploy.c) needs a boot loader that counts tries. A change
// is itself the next boot's default, and the previous deployment stays bootable.
constexpr std::string_view kOstreeTrialRefusal =
    "--trial is refused on {}: the change is already a new deployment, the default from the next boot on, and "
    "the previous deployment stays in the boot menu. Make the change without --trial; if the next boot fails, "
    "choose the previous deployment in the boot menu and run `{}` there to keep it the default";

// Why a token cannot be the old or new side of `--replace=K=OLD=NEW`: ostree splits that at its
// first two '=' (ostree-kernel-args.c ostree_kernel_args_new_replace), so K and OLD must have
// none, and a token without a value has no OLD to name.
std::optional<std::string> UnreplaceableToken(std::string_view token) {
  size_t eq = token.find('=');
  if (eq == std::string_view::npos)
    return fmt::format("{} has no value, and rpm-ostree kargs --replace names the old one as KEY=VALUE=NEWVALUE",
                       token);
  if (token.find('=', eq + 1) != std::string_view::npos)
    return fmt::format("{}'s value holds '=', which rpm-ostree kargs --replace=KEY=VALUE=NEWVALUE cannot tell apart",
                       token);
  return std::nullopt;
}

class RpmOstreeSetup final : public Setup {
 public:
  detect::BootKind Kind() const override { return detect::BootKind::kRpmOstree; }
  std::vector<SetupFile> FilesRead() const override { return {{kOstreeEntriesDir, ".conf"}}; }
  NextBoot ReadNextBoot(const BootContext& ctx) const override { return NextBootFromOstree(ctx); }
  std::vector<std::pair<std::string, std::string>> EditedCmdlines(const BootContext& ctx) const override {
    const NextBoot& next = ReadNextBoot(ctx);
    if (!next.cmdline) return {};
    if (!next.tokens.empty()) return {{next.tokens.front().file, *next.cmdline}};
    auto entry = OstreeDefaultEntry(ctx.root);
    if (!entry) return {};
    return {{*entry, *next.cmdline}};
  }
  std::optional<std::string> RefuseReplacing(const BootContext& /*ctx*/, std::string_view token) const override {
    if (auto why = UnreplaceableToken(token))
      return fmt::format(
          "the default deployment has the admin's {}; {}, so rocmtune leaves it: change it with "
          "`rpm-ostree kargs --replace` yourself",
          token, *why);
    return std::nullopt;
  }
  void PlanChange(const BootContext& ctx, const CmdlineChange& change, plan::Plan& plan) const override {
    const NextBoot& next = ReadNextBoot(ctx);
    const std::vector<std::string> next_tokens =
        next.cmdline ? SplitCmdline(*next.cmdline) : std::vector<std::string>{};
    const std::vector<OwnedToken> owned = Owned(ctx);
    // The token of `key` the default deployment has now: read from its entry; while a deployment
    // is staged, rocmtune's own record (it asked rpm-ostree for it) and nothing else.
    auto current = [&](std::string_view key) -> std::optional<std::optional<std::string>> {
      if (next.cmdline) return LastToken(next_tokens, key);
      for (const OwnedToken& o : owned)
        if (SameKey(TokenKey(o.token), key)) return std::optional<std::string>(o.token);
      return std::nullopt;
    };
    auto unknown = [&](std::string_view key) {
      plan.refused.push_back(
          {"",
           fmt::format("{}: the next boot's kernel arguments are unknown ({}) and {} is not rocmtune's there: boot "
                       "the pending deployment first",
                       key, next.why_unknown, key),
           ""});
    };
    std::vector<std::string> deletes, replaces, appends;
    for (const std::string& token : change.add) {
      std::string_view key = TokenKey(token);
      auto cur = current(key);
      if (!cur) {
        unknown(key);
        continue;
      }
      if (*cur == token) continue;
      if (!*cur) {
        appends.push_back(fmt::format("{}{}", plan::kKargsAppend, token));
        continue;
      }
      auto why = UnreplaceableToken(**cur);
      if (!why) why = UnreplaceableToken(token);
      if (why) {
        plan.refused.push_back({"", fmt::format("{}: {}", key, *why), ""});
        continue;
      }
      std::string_view old = **cur;
      size_t old_eq = old.find('='), eq = token.find('=');
      replaces.push_back(plan::KargsReplaceArg(old.substr(0, old_eq), old.substr(old_eq + 1), token.substr(eq + 1)));
    }
    for (const std::string& key : change.remove) {
      auto mine = std::find_if(owned.begin(), owned.end(),
                               [&](const OwnedToken& o) { return SameKey(TokenKey(o.token), key); });
      auto cur = current(key);
      if (mine == owned.end() || !cur) continue;
      if (*cur != mine->token) {
        plan.warnings.push_back({"",
                                 fmt::format("the default deployment has {} instead of rocmtune's {}: left as it is",
                                             cur->value_or(fmt::format("no {}", key)), mine->token),
                                 ""});
        continue;
      }
      deletes.push_back(fmt::format("{}{}", plan::kKargsDelete, mine->token));
    }
    // One kind of flag a call, in rpm-ostree's own order (delete, replace, append).
    for (std::vector<std::string>* args : {&deletes, &replaces, &appends}) {
      if (args->empty()) continue;
      args->insert(args->begin(), std::string(plan::kKargs));
      plan.ops.push_back(
          RegenOp(plan::Regenerator::kRpmOstreeKargs, std::move(*args), std::string(kOstreeKargsReason)));
      plan.bootloader = plan::Regen::kPending;
    }
    AddFileOp(ctx, plan::BackendId::kCmdline, plan::kCmdlineTokensState, change.state, std::string(kOstreeStateReason),
              plan);
  }
  std::optional<std::string> RefuseTrial(const BootContext& /*ctx*/) const override {
    return fmt::format(fmt::runtime(kOstreeTrialRefusal), "rpm-ostree", "rpm-ostree rollback");
  }
};

class BootcSetup final : public Setup {
 public:
  detect::BootKind Kind() const override { return detect::BootKind::kBootc; }
  bool InPlace() const override { return false; }
  std::vector<OwnedToken> Owned(const BootContext& ctx) const override {
    std::vector<OwnedToken> out;
    std::optional<std::string> source;
    if (auto staged = PendingStaged(ctx.root)) {
      // ostree carries the source keys of the merge deployment's entry into the staged one's
      // "bootconfig-extra" (ostree-sysroot-deploy.c, ostree 2026.1 and later, which bootc's
      // set-options-for-source requires): what is not there is not the staged deployment's.
      auto it = staged->bootconfig_extra.find(kBootcSourceKey);
      if (it != staged->bootconfig_extra.end()) source = it->second;
    } else {
      auto entry = OstreeDefaultEntry(ctx.root);
      auto content = entry ? ReadOptional(ctx.root, *entry) : std::nullopt;
      if (!content) return out;
      source = OstreeEntryValue(*content, kBootcSourceKey);
    }
    for (std::string& t : SplitCmdline(source.value_or(""))) out.push_back({std::move(t), std::nullopt});
    return out;
  }
  std::vector<SetupFile> FilesRead() const override { return {{kOstreeEntriesDir, ".conf"}}; }
  NextBoot ReadNextBoot(const BootContext& ctx) const override { return NextBootFromOstree(ctx); }
  std::vector<std::pair<std::string, std::string>> EditedCmdlines(const BootContext& /*ctx*/) const override {
    return {};
  }
  void PlanChange(const BootContext& ctx, const CmdlineChange& change, plan::Plan& plan) const override {
    std::string tokens, quoted, before;
    for (const std::string& t : change.tokens) {
      tokens += (tokens.empty() ? "" : " ") + t;
      quoted += fmt::format("{}\"{}\"", quoted.empty() ? "" : ", ", t);
    }
    for (const OwnedToken& t : Owned(ctx)) before += (before.empty() ? "" : " ") + t.token;
    const NextBoot& next = ReadNextBoot(ctx);
    if (!next.cmdline) {
      // The source's options rocmtune would replace are in the staged deployment: unknown here.
      plan.refused.push_back(
          {"",
           fmt::format("the next boot's kernel arguments are unknown ({}): boot the pending deployment first",
                       next.why_unknown),
           ""});
      return;
    }
    if (auto missing = BootcSourceOptionsMissing(ctx.root)) {
      std::string command = fmt::format("bootc loader-entries set-options-for-source --source rocmtune{}",
                                        tokens.empty() ? std::string() : fmt::format(" --options \"{}\"", tokens));
      plan.refused.push_back(
          {"",
           fmt::format("bootc manages this system's kernel arguments through `loader-entries set-options-for-source` "
                       "(bootc {} or later, with ostree {} or later), and {}. Update bootc and ostree and run `{}`, or "
                       "build them into your image as /usr/lib/bootc/kargs.d/90-rocmtune.toml with `kargs = [{}]`",
                       kBootcMinVersion, kOstreeMinVersion, *missing, command, quoted),
           "bootc-loader-entries-set-options-for-source(8); bootc docs: kernel arguments (kargs.d)"});
      return;
    }
    plan::Op op = RegenOp(plan::Regenerator::kBootc, {}, std::string(kBootcReason));
    op.argv = plan::BootcSetOptionsArgv(tokens);
    op.before = before;
    plan.ops.push_back(std::move(op));
    plan.bootloader = plan::Regen::kPending;
  }
  std::optional<std::string> RefuseTrial(const BootContext& /*ctx*/) const override {
    return fmt::format(fmt::runtime(kOstreeTrialRefusal), "bootc", "bootc rollback");
  }
};

}  // namespace

const Setup& RpmOstreeCmdlineSetup() {
  static const RpmOstreeSetup kSetup;
  return kSetup;
}

const Setup& BootcCmdlineSetup() {
  static const BootcSetup kSetup;
  return kSetup;
}

Result<std::string> OstreeDefaultEntry(const sys::Root& root) {
  auto names = root.ListDir(kOstreeEntriesDir);
  if (!names) return Fail(ErrorCode::kNotFound, fmt::format("/{} is not readable", kOstreeEntriesDir));
  std::optional<std::string> best, best_version;
  std::vector<std::string> sorted = *names;
  std::sort(sorted.begin(), sorted.end());
  for (const std::string& n : sorted) {
    if (!n.ends_with(".conf")) continue;
    std::string path = sys::JoinPath(kOstreeEntriesDir, n);
    auto content = ReadOptional(root, path);
    if (!content) continue;
    std::optional<std::string> version = OstreeEntryValue(*content, "version");
    // Highest version first; an entry without one after every entry with one.
    bool better = !best || (version && (!best_version || ::strverscmp(version->c_str(), best_version->c_str()) > 0));
    if (better) {
      best = path;
      best_version = version;
    }
  }
  if (!best) return Fail(ErrorCode::kNotFound, fmt::format("no BLS entry in /{}", kOstreeEntriesDir));
  return *best;
}

NextBoot NextBootFromOstree(const BootContext& ctx) {
  auto unknown = [](std::string why) {
    NextBoot next;
    next.why_unknown = std::move(why);
    return next;
  };
  if (ctx.root.Exists(sys::kStagedDeployment)) {
    auto staged = sys::ReadStagedDeployment(ctx.root);
    if (!staged)
      return unknown(
          fmt::format("a deployment is staged and rocmtune cannot read it ({}); `rpm-ostree status` or "
                      "`bootc status` shows its kernel arguments",
                      staged.error().message));
    // A locked staged deployment is left at shutdown (ostree-sysroot-deploy.c
    // _ostree_sysroot_finalize_impl_staged_deployment): the default entry boots next.
    if (!staged->locked) {
      if (staged->kargs) {
        std::string text = JoinCmdline(*staged->kargs);
        NextBoot next{text, "", {}, "", {}};
        AddNextBootTokens(sys::kStagedDeployment, 1, text, next.tokens);
        return next;
      }
      // No "kargs": ostree gives it the merge deployment's `options` when it finalizes it.
      if (staged->merge_name.empty())
        return unknown(fmt::format("the staged deployment (/{}) has neither kernel arguments nor a merge deployment",
                                   sys::kStagedDeployment));
      auto entry =
          OstreeEntryOf(ctx.root, fmt::format("ostree/deploy/{}/deploy/{}", staged->merge_osname, staged->merge_name));
      if (!entry)
        return unknown(fmt::format(
            "the staged deployment takes the arguments of deployment {}, which has no boot entry", staged->merge_name));
      return NextBootFromEntry(ctx, *entry);
    }
  }
  auto entry = OstreeDefaultEntry(ctx.root);
  if (!entry) return unknown(entry.error().message);
  return NextBootFromEntry(ctx, *entry);
}

std::optional<sys::StagedDeployment> PendingStaged(const sys::Root& root) {
  if (!root.Exists(sys::kStagedDeployment)) return std::nullopt;
  auto staged = sys::ReadStagedDeployment(root);
  if (!staged || staged->locked) return std::nullopt;
  return std::move(*staged);
}

std::optional<std::string> OstreeEntryOf(const sys::Root& root, std::string_view deploy_dir) {
  auto names = root.ListDir(kOstreeEntriesDir);
  if (!names) return std::nullopt;
  for (const std::string& n : *names) {
    if (!n.ends_with(".conf")) continue;
    std::string path = sys::JoinPath(kOstreeEntriesDir, n);
    auto content = ReadOptional(root, path);
    if (!content) continue;
    for (const std::string& t : SplitCmdline(OstreeEntryValue(*content, "options").value_or(""))) {
      if (!t.starts_with("ostree=")) continue;
      auto dir = detect::DeploymentDir(root, std::string_view(t).substr(7));
      // The physical root's ostree/ or /sysroot/ostree/ as the booted system reaches it.
      if (dir && (*dir == deploy_dir || dir->ends_with(fmt::format("/{}", deploy_dir)))) return path;
    }
  }
  return std::nullopt;
}

void AddRpmOstreeInitramfsEtc(const BootContext& ctx, plan::Plan& plan) {
  auto op = std::find_if(plan.ops.begin(), plan.ops.end(), [](const plan::Op& o) {
    return o.backend == plan::BackendId::kModprobe && o.path == plan::kModprobeDropIn;
  });
  if (op == plan.ops.end()) return;
  const std::string file = fmt::format("/{}", plan::kModprobeDropIn);
  // rpm-ostree records the tracked files in the deployment's origin ([rpmostree] initramfs-etc).
  auto dir = OstreeDefaultDeployment(ctx);
  auto origin = dir ? detect::ReadOrigin(ctx.root, *dir) : std::nullopt;
  bool tracked = origin && std::find(origin->initramfs_etc.begin(), origin->initramfs_etc.end(), file) !=
                               origin->initramfs_etc.end();
  std::string arg, reason;
  if (op->kind == plan::OpKind::kRemoveFile) {
    if (!tracked) return;
    arg = fmt::format("{}{}", plan::kUntrack, file);
    reason = "the initramfs no longer carries rocmtune's modprobe.d file";
  } else if (tracked) {
    arg = std::string(plan::kForceSync);
    reason = "a new deployment whose initramfs carries the new content of rocmtune's modprobe.d file";
  } else {
    arg = fmt::format("{}{}", plan::kTrack, file);
    reason = "the image's initramfs may load amdgpu: it carries rocmtune's modprobe.d file from the next deployment on";
  }
  plan.ops.push_back(
      RegenOp(plan::Regenerator::kRpmOstreeInitramfsEtc, {std::string(plan::kInitramfsEtc), arg}, std::move(reason)));
  plan.initramfs = plan::Regen::kPending;
}

}  // namespace rocmtune::boot
