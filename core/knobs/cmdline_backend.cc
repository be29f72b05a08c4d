#include "knobs/cmdline_backend.h"

#include <algorithm>

#include <fmt/format.h>

#include "boot/cmdline_owned.h"
#include "boot/cmdline_scan.h"
#include "boot/cmdline_tokens.h"
#include "boot/next_boot.h"
#include "boot/setup.h"
#include "knobs/effective.h"
#include "knobs/size_checks.h"
#include "knowledge/kernel_options.h"
#include "plan/owned_paths.h"
#include "util/text.h"

namespace rocmtune::knobs {

namespace {

class CmdlineBackend final : public Backend {
 public:
  std::string_view Name() const override { return "cmdline"; }
  bool Handles(const KnobKey& key) const override { return key.kind == KnobKind::kCmdline; }
  void Validate(const KnobContext& ctx, const KnobKey& key, const std::optional<std::string>& value,
                plan::Plan& plan) const override;
  KnobState Read(const KnobContext& ctx, const KnobKey& key) const override;
  void PlanChanges(const KnobContext& ctx, std::span<const Assignment> set, std::span<const KnobKey> unset,
                   plan::Plan& plan) const override;
  std::vector<KnobKey> ConfiguredKeys(const KnobContext& ctx) const override;
  std::vector<KnobKey> OwnedKeys(const KnobContext& ctx) const override;
  std::vector<std::string> Describe(const KnobContext& ctx, const KnobKey& key) const override;
};

}  // namespace

std::unique_ptr<Backend> MakeCmdlineBackend() { return std::make_unique<CmdlineBackend>(); }

namespace {

std::string Token(const KnobKey& key, const std::string& value) {
  return value.empty() ? key.name : fmt::format("{}={}", key.name, value);
}

bool OwnsKey(const std::vector<boot::OwnedToken>& owned, std::string_view key) {
  return std::any_of(owned.begin(), owned.end(),
                     [&](const boot::OwnedToken& t) { return boot::SameKey(boot::TokenKey(t.token), key); });
}

// What rocmtune owns now, however the boot setup stores it (cmdline_setup.h); with the setup
// unknown, what the state file remembers.
std::vector<boot::OwnedToken> OwnedTokens(const KnobContext& ctx) {
  if (const boot::Setup* setup = boot::SetupFor(ctx.inventory.system.boot.kind)) return setup->Owned(ctx);
  if (auto content = ReadOptional(ctx.root, plan::kCmdlineTokensState)) return boot::ParseTokensState(*content);
  return {};
}

}  // namespace

bool OwnsCmdlineKey(const KnobContext& ctx, std::string_view key) { return OwnsKey(OwnedTokens(ctx), key); }

void CmdlineBackend::Validate(const KnobContext& ctx, const KnobKey& key, const std::optional<std::string>& value,
                              plan::Plan& plan) const {
  const std::string text = key.Text();
  if (auto ok = boot::ValidateKey(key.name); !ok) {
    plan.refused.push_back({text, ok.error().message, ""});
    return;
  }
  if (!value) return;
  if (!value->empty())
    if (auto ok = boot::ValidateValue(*value); !ok) {
      plan.refused.push_back({text, fmt::format("{}: {}", text, ok.error().message), ""});
      return;
    }
  size_t dot = key.name.find('.');
  std::string module = dot == std::string::npos ? "" : key.name.substr(0, dot);
  if (module == "amdgpu" || module == "ttm" || module == "amdttm") {
    const knowledge::ModuleParam* p = ctx.catalog.Find(module, key.name.substr(dot + 1));
    if (!p) {
      plan.refused.push_back(
          {text, fmt::format("{}: {} is not a parameter of the {} module", text, key.name.substr(dot + 1), module),
           ""});
      return;
    }
    auto v = knowledge::ValidateValue(*p, *value);
    if (!v) {
      plan.refused.push_back({text, fmt::format("{}: {}", text, v.error().message), p->source});
      return;
    }
    // The same size rules as the module option (size_checks.h): ttm.pages_limit= is pages here too.
    for (SettingIssue& issue : CheckSize(ctx, text, *p, *v)) AddToPlan(text, std::move(issue), plan);
  } else if (const auto* option = knowledge::KernelOptions::Builtin().Find(key.name)) {
    if (std::string why = knowledge::CheckKernelOptionValue(*option, *value); !why.empty())
      plan.refused.push_back({text, why, option->source});
  } else {
    // The helper's allow-list takes only known options: refuse here, with the reason, rather
    // than plan what it will refuse.
    plan.refused.push_back({text,
                            fmt::format("rocmtune has no record of the kernel option '{}' and writes only options "
                                        "it knows (the kernel hands unknown ones to init, so a typo is silent)",
                                        key.name),
                            ""});
  }
  if (const auto& boot = ctx.inventory.system.boot; !boot.kind)
    plan.refused.push_back(
        {text,
         boot.why_unknown.empty()
             ? std::string("cannot tell how this system boots (no GRUB, BLS entries or /etc/kernel/cmdline "
                           "found), so there is nowhere safe to put a kernel option")
             : fmt::format("cannot tell how this system boots ({}), so there is nowhere safe to put a kernel option",
                           boot.why_unknown),
         ""});
}

KnobState CmdlineBackend::Read(const KnobContext& ctx, const KnobKey& key) const {
  KnobState state;
  state.key = key;
  state.owner = Owner::kKernel;
  if (ctx.inventory.system.cmdline)
    state.running = boot::TokenValue(boot::SplitCmdline(*ctx.inventory.system.cmdline), key.name);
  const boot::NextBoot& next = boot::ReadNextBoot(ctx);
  if (next.cmdline) {
    // CONFIGURED is the next boot's command line, WHERE the file and line of the token that
    // decides it; /proc/cmdline is only what runs now.
    if (const boot::CmdlineTokenAt* token = boot::DecidingToken(next, key.name)) {
      state.configured = boot::TokenValue(std::vector<std::string>{token->token}, key.name);
      state.configured_in = token->file;
      state.configured_line = token->line;
      state.owner = OwnsCmdlineKey(ctx, key.name) ? Owner::kRocmtune : Owner::kAdmin;
    }
    // systemd-boot: the entry boots next, /etc/kernel/cmdline goes into kernels installed later.
    if (!next.later_file.empty()) {
      boot::NextBoot later_boot;
      later_boot.tokens = next.later_tokens;
      const boot::CmdlineTokenAt* later = boot::DecidingToken(later_boot, key.name);
      std::optional<std::string> later_value =
          later ? boot::TokenValue(std::vector<std::string>{later->token}, key.name) : std::nullopt;
      if (later_value != state.configured)
        state.notes.push_back(
            fmt::format("kernels installed later get {} from {} (kernel-install), not what the next boot's entry has",
                        later_value ? fmt::format("{}={}", key.name, *later_value) : fmt::format("no {}", key.name),
                        boot::WhereText(next.later_file, later ? later->line : 0)));
    }
  } else {
    state.owner = Owner::kUnknown;
    state.notes.push_back(fmt::format("next boot's command line unknown: {}", next.why_unknown));
  }
  state.effective = state.running;
  const auto* option = knowledge::KernelOptions::Builtin().Find(key.name);
  // A value the kernel does not accept is ignored (amd_iommu=on: "Unknown option"), never in effect.
  if (state.running && option)
    if (std::string rejected = knowledge::CheckKernelOptionValue(*option, *state.running); !rejected.empty()) {
      state.effective = "ignored";
      state.notes.push_back(rejected);
    }
  // `module.option=` of a module that is not loaded: nothing reads it now.
  if (size_t dot = key.name.find('.'); dot != std::string::npos) {
    const std::string module = key.name.substr(0, dot);
    if ((module == "amdgpu" || module == "ttm" || module == "amdttm") &&
        !ModuleLoaded(ctx.root, ctx.inventory, module)) {
      state.effective = std::string(kNotLoaded);
      state.notes.push_back(fmt::format("the {} module is not loaded: nothing reads {} now", module, key.name));
    }
  }
  // The same for the next boot: a reboot does not make such a value work, so it is not pending.
  if (state.configured && option)
    if (std::string rejected = knowledge::CheckKernelOptionValue(*option, *state.configured); !rejected.empty()) {
      state.ineffective = true;
      if (state.configured != state.running)
        state.notes.push_back(fmt::format("ineffective at the next boot ({}): {}",
                                          boot::WhereText(*state.configured_in, state.configured_line), rejected));
    }
  if (next.cmdline && state.running && !state.configured) {
    state.gone_after_reboot = true;
    state.notes.push_back(
        fmt::format("only on the running command line (/proc/cmdline): the next boot's command "
                    "line does not have {}, so it is gone after a reboot",
                    key.name));
  } else if (next.cmdline && state.configured != state.running && !state.ineffective) {
    state.pending_reboot = true;
  }
  return state;
}

void CmdlineBackend::PlanChanges(const KnobContext& ctx, std::span<const Assignment> set,
                                 std::span<const KnobKey> unset, plan::Plan& plan) const {
  const boot::Setup* setup = boot::SetupFor(ctx.inventory.system.boot.kind);
  std::vector<boot::OwnedToken> owned = OwnedTokens(ctx);
  std::vector<boot::OwnedToken> desired = owned;
  // `add` holds rocmtune's tokens and the admin's being put back; each replaces the last token
  // of its key where it stands, or goes at the end.
  std::vector<std::string> add, remove;
  std::optional<std::string> next = boot::NextBootCmdline(ctx);
  const std::vector<std::string> next_tokens = next ? boot::SplitCmdline(*next) : std::vector<std::string>{};
  auto find = [&](std::string_view key) {
    return std::find_if(desired.begin(), desired.end(),
                        [&](const boot::OwnedToken& t) { return boot::SameKey(boot::TokenKey(t.token), key); });
  };
  for (const Assignment& a : set) {
    std::string token = Token(a.key, a.value);
    if (auto it = find(a.key.name); it != desired.end()) {
      // Ours already; what it replaced stays remembered, and the admin's own value is theirs again.
      if (it->replaced == token) desired.erase(it);
      else it->token = token;
      add.push_back(std::move(token));
      continue;
    }
    std::optional<std::string> admin = boot::TokenValue(next_tokens, a.key.name);
    // The admin's already, with this value: nothing to write, and it stays the admin's.
    if (admin && *admin == a.value) continue;
    boot::OwnedToken record{token, std::nullopt};
    if (admin && setup && setup->InPlace()) {
      auto replaced = boot::ReplacedAdminToken(ctx, *setup, a.key.name);
      if (!replaced) {
        plan.refused.push_back({a.key.Text(), replaced.error().message, ""});
        continue;
      }
      record.replaced = *replaced;
    }
    if (admin)
      plan.warnings.push_back(
          {a.key.Text(),
           record.replaced ? fmt::format("the command line has the admin's {}; rocmtune's token takes its place and "
                                         "unset, revert or reset put it back",
                                         *record.replaced)
                           : fmt::format("the command line already has {}={}; rocmtune's token comes after it and wins",
                                         a.key.name, *admin),
           ""});
    desired.push_back(std::move(record));
    add.push_back(std::move(token));
  }
  for (const KnobKey& k : unset) {
    auto it = find(k.name);
    if (it == desired.end()) {
      plan.warnings.push_back({k.Text(), fmt::format("{} was not added by rocmtune: left as it is", k.Text()), ""});
      continue;
    }
    if (it->replaced) add.push_back(*it->replaced);
    else remove.push_back(k.name);
    desired.erase(it);
  }
  if (desired == owned) return;  // nothing of rocmtune's changes
  std::vector<std::string> desired_tokens;
  desired_tokens.reserve(desired.size());
  for (const boot::OwnedToken& t : desired) desired_tokens.push_back(t.token);
  const std::optional<std::string> state =
      desired.empty() ? std::nullopt : std::optional(boot::TokensStateText(desired));

  if (!setup) {
    plan.refused.push_back({"", "unknown boot setup: no kernel command line can be changed", ""});
    return;
  }
  setup->PlanChange(ctx, boot::CmdlineChange{add, remove, desired_tokens, state}, plan);
  plan.reboot_required = true;
}

std::vector<KnobKey> CmdlineBackend::ConfiguredKeys(const KnobContext& ctx) const {
  std::vector<KnobKey> keys;
  auto add = [&](std::string_view name) {
    KnobKey k{KnobKind::kCmdline, "", "", std::string(name)};
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(std::move(k));
  };
  for (const boot::OwnedToken& t : OwnedTokens(ctx)) add(boot::TokenKey(t.token));
  for (const std::string& name : boot::KnownOptionsInUse(ctx)) add(name);
  return keys;
}

std::vector<KnobKey> CmdlineBackend::OwnedKeys(const KnobContext& ctx) const {
  std::vector<KnobKey> keys;
  for (const boot::OwnedToken& t : OwnedTokens(ctx)) {
    KnobKey k{KnobKind::kCmdline, "", "", std::string(boot::TokenKey(t.token))};
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(std::move(k));
  }
  return keys;
}

std::vector<std::string> CmdlineBackend::Describe(const KnobContext& ctx, const KnobKey& key) const {
  std::vector<std::string> lines;
  if (const auto* o = knowledge::KernelOptions::Builtin().Find(key.name)) {
    lines.push_back(o->description);
    std::string values;
    for (const auto& v : o->values) values += (values.empty() ? "" : ", ") + v;
    lines.push_back(fmt::format("values: {}{}", values, o->list ? " (comma-separated)" : ""));
    lines.push_back(fmt::format("source: {}", o->source));
  }
  const auto& boot = ctx.inventory.system.boot.kind;
  lines.push_back(fmt::format("boot setup: {}; takes effect at the next boot",
                              boot ? detect::BootKindName(*boot) : std::string_view("unknown")));
  return lines;
}

}  // namespace rocmtune::knobs
