#include "knobs/modprobe_backend.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "boot/cmdline_tokens.h"
#include "boot/initramfs.h"
#include "boot/next_boot.h"
#include "boot/setup.h"
#include "knobs/admin_lines.h"
#include "knobs/cmdline_backend.h"
#include "knobs/effective.h"
#include "knobs/module_param_checks.h"
#include "knowledge/param_size.h"
#include "plan/owned_paths.h"
#include "util/text.h"

namespace rocmtune::knobs {

namespace {

class ModprobeBackend final : public Backend {
 public:
  std::string_view Name() const override { return "modprobe"; }
  bool Handles(const KnobKey& key) const override { return key.kind == KnobKind::kModuleParam; }
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

std::unique_ptr<Backend> MakeModprobeBackend() { return std::make_unique<ModprobeBackend>(); }

namespace {

constexpr std::string_view kModules[] = {"amdgpu", "ttm", "amdttm"};

const knowledge::ModuleParam* Lookup(const KnobContext& ctx, const KnobKey& key) {
  return ctx.catalog.Find(key.module, key.name);
}

const sys::ModprobeConfig* ReadConfig(const KnobContext& ctx, std::vector<std::string>* errors = nullptr) {
  if (!ctx.modprobe_config) ctx.modprobe_config = sys::ReadModprobeConfig(ctx.root, kModules);
  if (!*ctx.modprobe_config) {
    if (errors) errors->push_back(ctx.modprobe_config->error().message);
    return nullptr;
  }
  return &**ctx.modprobe_config;
}

// `module.name=` on the command line the boot configuration gives the next boot; nullopt when
// absent or unknown.
std::optional<std::string> BootCmdlineValue(const KnobContext& ctx, const KnobKey& key) {
  auto next = boot::NextBootCmdline(ctx);
  if (!next) return std::nullopt;
  return boot::TokenValue(boot::SplitCmdline(*next), fmt::format("{}.{}", key.module, key.name));
}

const detect::ModuleState& ModuleStateFor(const KnobContext& ctx, std::string_view module) {
  return module == "amdgpu" ? ctx.inventory.system.amdgpu : ctx.inventory.system.ttm;
}

std::optional<std::string> Running(const KnobContext& ctx, const KnobKey& key) {
  if (key.module == "amdttm") {
    auto v = ctx.root.ReadFile(fmt::format("sys/module/amdttm/parameters/{}", key.name), 4096);
    return v ? std::optional(text::Clean(*v)) : std::nullopt;
  }
  const detect::ModuleState& m = ModuleStateFor(ctx, key.module);
  auto it = m.parameters.find(key.name);
  return it == m.parameters.end() ? std::nullopt : it->second;
}

// Our own options, as the drop-in holds them now.
std::map<std::string, std::map<std::string, std::string>> OwnedOptions(const sys::ModprobeConfig& config) {
  std::map<std::string, std::map<std::string, std::string>> owned;
  for (const sys::ModuleOption& o : config.options)
    if (o.file == plan::kModprobeDropIn) owned[o.module][o.name] = o.value;
  return owned;
}

std::string AffectedList(const knowledge::ModuleParam& p) {
  std::string out;
  for (const std::string& gc : p.affects_gc) out += (out.empty() ? "" : "/") + gc;
  return out;
}

}  // namespace

std::string RenderModprobeDropIn(const std::map<std::string, std::map<std::string, std::string>>& options) {
  std::string out =
      "# Managed by rocmtune: edits here are reported as drift and not overwritten.\n"
      "# See `rocmtunectl status`; remove everything rocmtune set with `rocmtunectl reset`.\n";
  for (const auto& [module, params] : options) {
    if (params.empty()) continue;
    out += fmt::format("options {}", module);
    for (const auto& [name, value] : params) out += fmt::format(" {}={}", name, value);
    out += "\n";
  }
  return out;
}

void ModprobeBackend::Validate(const KnobContext& ctx, const KnobKey& key, const std::optional<std::string>& value,
                               plan::Plan& plan) const {
  // The rules live in module_param_checks.cc, shared with the findings on settings already there.
  for (SettingIssue& issue : CheckModuleParam(ctx, key, value)) AddToPlan(key.Text(), std::move(issue), plan);
}

namespace {

// The next boot's value of a module option, in the order the module gets them: modprobe.d's
// `options` lines, then `module.option=` of the kernel command line, which wins. libkmod's
// kmod_config_new() parses every modprobe.d file and then kmod_config_parse_kcmdline(), which
// appends the command line's options to the same list (kmod libkmod/libkmod-config.c); modprobe
// passes them in that order and the kernel's parse_args() applies each in turn, the last one
// standing; a built-in amdgpu/ttm reads the command line only. What the next boot's command line
// is comes from the boot configuration (next_boot.h), never from /proc/cmdline, which is what
// runs now.
void ReadConfigured(const KnobContext& ctx, const KnobKey& key, KnobState& state) {
  const sys::ModprobeConfig* config = ReadConfig(ctx, &state.notes);
  const std::string param = fmt::format("{}.{}", key.module, key.name);
  // sys::ModuleOption spells both with underscores, as libkmod and the kernel's parameq() compare.
  std::string module = key.module, name = key.name;
  std::replace(module.begin(), module.end(), '-', '_');
  std::replace(name.begin(), name.end(), '-', '_');
  std::optional<sys::ModuleOption> file_win, running_cmdline;
  std::vector<const sys::ModuleOption*> in_files;
  if (config)
    for (const sys::ModuleOption& o : config->options) {
      if (o.module != module || o.name != name) continue;
      if (o.file == "proc/cmdline") {
        running_cmdline = o;
        continue;
      }
      file_win = o;
      in_files.push_back(&o);
    }
  const boot::NextBoot& next = boot::ReadNextBoot(ctx);
  const boot::CmdlineTokenAt* boot = next.cmdline ? boot::DecidingToken(next, param) : nullptr;
  if (boot) {
    state.configured = boot::TokenValue(std::vector<std::string>{boot->token}, param);
    state.configured_in = boot->file;
    state.configured_line = boot->line;
    state.owner = OwnsCmdlineKey(ctx, param) ? Owner::kRocmtune : Owner::kAdmin;
  } else if (file_win) {
    state.configured = file_win->value;
    state.configured_in = file_win->file;
    state.configured_line = file_win->line;
    state.owner = file_win->file == plan::kModprobeDropIn ? Owner::kRocmtune : Owner::kAdmin;
  }
  const std::string where = state.configured_in ? boot::WhereText(*state.configured_in, state.configured_line) : "";
  for (size_t i = 0; i < in_files.size(); ++i) {
    const sys::ModuleOption* o = in_files[i];
    if (!boot && i + 1 == in_files.size()) continue;  // the winner itself
    state.notes.push_back(fmt::format("also set to {} in {}, overridden by {}{}", o->value,
                                      boot::WhereText(o->file, o->line), where,
                                      boot ? " (the kernel command line wins over modprobe.d)" : ""));
    if (o->file == plan::kModprobeDropIn && o->value != *state.configured) {
      state.overridden = o->value;
      state.overridden_by =
          boot ? fmt::format("the next boot's kernel command line ({}: {}={})", where, param, *state.configured)
               : fmt::format("{} ({}={})", where, key.name, *state.configured);
    }
  }
  if (!running_cmdline) return;
  if (!next.cmdline) {
    // Which command line the next boot gets is unknown: the running one is the best evidence,
    // and it overrides modprobe.d while the boot configuration passes it.
    state.notes.push_back(fmt::format("next boot's command line unknown ({}); the running one has {}={}",
                                      next.why_unknown, param, running_cmdline->value));
    // A token of the command line, and no modprobe.d file sets it: whether the next boot has it,
    // and whose it is, are unknown.
    if (!file_win) state.owner = Owner::kUnknown;
    if (file_win && file_win->file == plan::kModprobeDropIn && file_win->value != running_cmdline->value) {
      state.overridden = file_win->value;
      state.overridden_by = fmt::format("/proc/cmdline ({}={})", param, running_cmdline->value);
    }
  } else if (!boot) {
    state.notes.push_back(
        fmt::format("{}={} is only on the running command line (/proc/cmdline), not the next "
                    "boot's: gone after a reboot",
                    param, running_cmdline->value));
    state.gone_after_reboot = !state.configured;
  }
}

}  // namespace

KnobState ModprobeBackend::Read(const KnobContext& ctx, const KnobKey& key) const {
  KnobState state;
  state.key = key;
  state.owner = Owner::kKernel;
  state.running = Running(ctx, key);
  ReadConfigured(ctx, key, state);
  const knowledge::ModuleParam* param = Lookup(ctx, key);
  if (param) {
    std::string basis = state.running.value_or(state.configured.value_or(param->default_value));
    state.effective = EffectiveValue(*param, basis, ctx.inventory);
    // Read only on some GPUs, none of them here: whatever its value, it does nothing.
    if ((!param->affects_gc.empty() || param->affects_apu_only) && !ctx.inventory.gpus.empty() &&
        AffectedGpus(*param, ctx.inventory).empty()) {
      state.effective = "no effect";
      state.notes.push_back("no GPU of this machine reads it (rocmtunectl explain " + key.Text() + ")");
    }
  } else if (state.configured) {
    state.effective = "ignored";  // kernel/module/main.c: "unknown parameter ... ignored"
    state.notes.push_back(
        fmt::format("{} is not a parameter of the {} module: the kernel ignores it", key.Text(), key.module));
  }
  // amdgpu-dkms's amdgpu counts its own amdttm's limits; the in-kernel ttm's do not reach it.
  if (key.module == "ttm" && ctx.root.IsDirectory("sys/module/amdttm")) {
    state.ineffective = true;
    state.notes.push_back(fmt::format("amdgpu-dkms is loaded: its amdgpu counts amdttm.{}, not this", key.name));
  }
  // A module that is not loaded uses nothing: whatever is configured waits for it to load.
  if (!ModuleLoaded(ctx.root, ctx.inventory, key.module)) {
    state.effective = std::string(kNotLoaded);
    state.notes.push_back(
        fmt::format("the {} module is not loaded: nothing uses this now; it reads the configured "
                    "value when it loads",
                    key.module));
  }
  // Parameters are read when the module loads: a configured value the running kernel does
  // not show yet needs a reboot (or module reload).
  if (state.configured && state.running && *state.configured != *state.running) state.pending_reboot = true;
  return state;
}

void ModprobeBackend::PlanChanges(const KnobContext& ctx, std::span<const Assignment> set,
                                  std::span<const KnobKey> unset, plan::Plan& plan) const {
  std::vector<std::string> errors;
  auto config = ReadConfig(ctx, &errors);
  if (!config) {
    for (auto& e : errors) plan.refused.push_back({"", e, ""});
    return;
  }
  // --admin-lines: the admin's modprobe.d lines that set these keys are commented out (or
  // refused naming file:line); the next load reads the file again, so a reboot it needs.
  bool admin_edits = false;
  if (ctx.admin_lines) {
    for (const Assignment& a : set)
      admin_edits |= PlanCommentOutModule(ctx.root, a.key.module, a.key.name, *config, plan);
    for (const KnobKey& k : unset) admin_edits |= PlanCommentOutModule(ctx.root, k.module, k.name, *config, plan);
  }
  auto finish = [&] {
    plan.reboot_required = true;
    boot::AddInitramfsRegeneration(ctx, plan);
  };
  auto owned = OwnedOptions(*config);
  auto desired = owned;
  for (const Assignment& a : set)
    desired[a.key.module][a.key.name] = *knowledge::ValidateValue(*Lookup(ctx, a.key), a.value);
  for (const KnobKey& k : unset) {
    if (!desired[k.module].erase(k.name) && !owned[k.module].count(k.name) && !ctx.admin_lines) {
      auto win = sys::Winning(*config, k.module, k.name);
      if (win)
        plan.warnings.push_back(
            {k.Text(), fmt::format("{} is set in {}, which rocmtune does not own: left as it is", k.Text(), win->file),
             ""});
    }
  }
  for (auto it = desired.begin(); it != desired.end();) it = it->second.empty() ? desired.erase(it) : std::next(it);
  for (auto it = owned.begin(); it != owned.end();) it = it->second.empty() ? owned.erase(it) : std::next(it);
  if (desired == owned) {
    if (admin_edits) finish();
    return;
  }

  std::optional<std::string> before_text = ReadOptional(ctx.root, plan::kModprobeDropIn);
  plan::Op op;
  op.backend = plan::BackendId::kModprobe;
  op.path = std::string(plan::kModprobeDropIn);
  op.before = before_text;
  if (desired.empty()) {
    op.kind = plan::OpKind::kRemoveFile;
    op.reason = "no amdgpu/ttm option of rocmtune's is left";
  } else {
    op.kind = plan::OpKind::kWriteFile;
    op.after = RenderModprobeDropIn(desired);
    op.reason = "module options are read when amdgpu/ttm load";
  }
  plan.ops.push_back(std::move(op));

  // Conflicts: another file that sets the same parameter after ours wins at load time.
  for (const Assignment& a : set) {
    for (const sys::ModuleOption& o : config->options) {
      if (o.module != a.key.module || o.name != a.key.name || o.file == plan::kModprobeDropIn) continue;
      if (ctx.admin_lines && o.file != "proc/cmdline") continue;  // commented out above, or refused
      // libkmod reads files sorted by basename; the kernel command line comes last.
      std::string_view base = std::string_view(o.file).substr(o.file.rfind('/') + 1);
      bool theirs_wins = o.file == "proc/cmdline" || base > std::string_view("rocmtune.conf");
      if (o.file == "proc/cmdline") {
        // Known next boot: what it passes is warned about below; the running value then goes.
        if (boot::NextBootCmdline(ctx)) continue;
        plan.warnings.push_back(
            {a.key.Text(),
             fmt::format("the kernel command line (/proc/cmdline) sets {}.{}={}, and it overrides modprobe.d: {} "
                         "never takes effect while the boot configuration passes it; remove it there",
                         o.module, o.name, o.value, a.key.Text()),
             ""});
        continue;
      }
      plan.warnings.push_back(
          {a.key.Text(),
           fmt::format("{} also sets {}={}{}", o.file, o.name, o.value,
                       theirs_wins ? "; it is read later and wins" : "; rocmtune's value is read later and wins"),
           ""});
    }
  }
  for (const Assignment& a : set) {
    auto next = BootCmdlineValue(ctx, a.key);
    if (next && *next != desired[a.key.module][a.key.name])
      plan.warnings.push_back(
          {a.key.Text(),
           fmt::format("the boot configuration gives the next boot's kernel command line {}.{}={}, which overrides "
                       "modprobe.d: {} will not take effect while it does; remove it there",
                       a.key.module, a.key.name, *next, a.key.Text()),
           ""});
  }
  finish();
}

std::vector<KnobKey> ModprobeBackend::ConfiguredKeys(const KnobContext& ctx) const {
  std::vector<KnobKey> keys;
  auto add = [&](KnobKey k) {
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(std::move(k));
  };
  if (auto config = ReadConfig(ctx))
    for (const sys::ModuleOption& o : config->options) add({KnobKind::kModuleParam, o.module, "", o.name});
  // `module.option=` on the next boot's command line configures the module as well.
  for (const boot::CmdlineTokenAt& t : boot::ReadNextBoot(ctx).tokens) {
    std::string key(boot::TokenKey(t.token));
    size_t dot = key.find('.');
    if (dot == std::string::npos) continue;
    std::string module = key.substr(0, dot), name = key.substr(dot + 1);
    std::replace(module.begin(), module.end(), '-', '_');
    std::replace(name.begin(), name.end(), '-', '_');  // the kernel's parameq()
    if (std::find(std::begin(kModules), std::end(kModules), module) != std::end(kModules) && !name.empty())
      add({KnobKind::kModuleParam, module, "", name});
  }
  return keys;
}

std::vector<KnobKey> ModprobeBackend::OwnedKeys(const KnobContext& ctx) const {
  std::vector<KnobKey> keys;
  auto config = ReadConfig(ctx);
  if (!config) return keys;
  for (const auto& [module, options] : OwnedOptions(*config))
    for (const auto& [name, value] : options) keys.push_back({KnobKind::kModuleParam, module, "", name});
  return keys;
}

std::vector<std::string> ModprobeBackend::Describe(const KnobContext& ctx, const KnobKey& key) const {
  std::vector<std::string> lines;
  const knowledge::ModuleParam* p = Lookup(ctx, key);
  if (!p) return lines;
  lines.push_back(p->description);
  if (p->note) lines.push_back(*p->note);
  std::string values;
  if (!p->values.empty()) {
    for (int64_t v : p->values) {
      auto name = p->value_names.find(std::to_string(v));
      values += fmt::format("{}{}{}", values.empty() ? "" : ", ", v,
                            name == p->value_names.end() ? "" : fmt::format(" ({})", name->second));
    }
  } else if (p->min || p->max) {
    values = fmt::format("{} .. {}", p->min ? std::to_string(*p->min) : "", p->max ? std::to_string(*p->max) : "");
  }
  lines.push_back(fmt::format("type {}, default {}{}", knowledge::ParamTypeName(p->type), p->default_value,
                              values.empty() ? "" : fmt::format(", values {}", values)));
  if (p->unit)  // people type GiB where the kernel counts pages (size_checks.h)
    lines.push_back(fmt::format("a size in {}: 8 GiB is {}; set refuses more than the RAM unless --force",
                                knowledge::UnitPhrase(*p->unit), (8ULL << 30) / knowledge::UnitBytes(*p->unit)));
  lines.push_back(fmt::format("in kernels since {}{}; takes effect at {}", p->since,
                              p->removed ? fmt::format(", removed {}", *p->removed) : "", p->takes_effect));
  if (p->taints)
    lines.push_back(p->taints_since
                        ? fmt::format("unsafe from kernel {} on: setting it taints the kernel", *p->taints_since)
                        : "unsafe: setting it taints the kernel");
  if (p->deprecated_by) lines.push_back(fmt::format("deprecated in favour of {}", *p->deprecated_by));
  for (const detect::Gpu& g : ctx.inventory.gpus) {
    auto affected = AffectedGpus(*p, ctx.inventory);
    bool hit = std::find(affected.begin(), affected.end(), &g) != affected.end();
    lines.push_back(fmt::format(
        "on {} ({}, GC {}): {}", g.id, g.gfx_target.value_or("gfx unknown"), g.gc_ip.value_or("unknown"),
        hit ? "the driver reads it"
            : fmt::format("no effect (only read for {})", p->affects_apu_only ? "APUs" : "GC " + AffectedList(*p))));
  }
  lines.push_back(fmt::format("source: {}", p->source));
  return lines;
}

}  // namespace rocmtune::knobs
