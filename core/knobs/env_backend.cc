#include "knobs/env_backend.h"

#include <fmt/format.h>

#include "knobs/admin_lines.h"
#include "knobs/effective.h"
#include "knobs/env_sources.h"
#include "knowledge/env_vars.h"
#include "knowledge/gfx_targets.h"
#include "plan/owned_paths.h"
#include "util/suggest.h"
#include "util/text.h"

namespace rocmtune::knobs {

namespace {

class EnvBackend final : public Backend {
 public:
  std::string_view Name() const override { return "env"; }
  bool Handles(const KnobKey& key) const override { return key.kind == KnobKind::kEnv; }
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

std::unique_ptr<Backend> MakeEnvBackend() { return std::make_unique<EnvBackend>(); }

namespace {

std::map<std::string, std::string> Owned(const sys::Root& root) {
  auto content = root.ReadFile(plan::kEnvironmentDropIn, 1 << 20);
  return content ? ParseEnvironmentFile(*content) : std::map<std::string, std::string>{};
}

// HSA_OVERRIDE_GFX_VERSION against the GPUs present: the override only makes sense between
// targets of one ISA family (gfx1031..1036 as gfx1030).
// `where` says where a setting rocmtune does not own is written ("/etc/environment:3", "the
// environment of this process", knobs::SettingPlace): what would be refused for
// rocmtune's own file is then a warning about that file.
// `cross_isa` (when given) gets the GPU id of each cross-ISA message, in order; `harms` (when
// given) gets what a foreign line does instead of a warning of its own ("gfx1030 code on A (gfx1010,
// RDNA1): a different ISA; ..."), for a caller that says it in the warning it makes of that line.
struct OverrideOut {
  std::vector<std::string>* cross_isa = nullptr;
  std::vector<std::string>* harms = nullptr;
};

void CheckOverride(const KnobContext& ctx, const std::string& key, const std::string& value, plan::Plan& plan,
                   const std::string& where = "", OverrideOut out = {}) {
  auto v = ParseGc(value);  // same N.N.N shape, already range-checked by CheckEnvValue
  if (!v) return;
  uint32_t version = static_cast<uint32_t>(v->major * 10000 + v->minor * 100 + v->rev);
  std::string target = knowledge::GfxNameFromVersion(version);
  const auto* as = knowledge::GfxTargetTable::Builtin().ByVersion(version);
  const std::string source = std::string(knowledge::EnvVars::Builtin().Find("HSA_OVERRIDE_GFX_VERSION")->source);
  for (const detect::Gpu& gpu : ctx.inventory.gpus) {
    if (!gpu.gfx_target) continue;
    if (*gpu.gfx_target == target) {
      if (!where.empty()) continue;  // a harmless no-op elsewhere is not worth a line
      plan.warnings.push_back(
          {key, fmt::format("{}: {} already is {}; the override does nothing", key, gpu.id, target), source});
      continue;
    }
    const auto* own = knowledge::GfxTargetTable::Builtin().ByName(*gpu.gfx_target);
    bool same_family = as && own && as->family && own->family && *as->family == *own->family;
    if (!same_family) {
      if (out.cross_isa) out.cross_isa->push_back(gpu.id);
      std::string harm = fmt::format(
          "{} code on {} ({}, {}): a different ISA; expect HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION or "
          "wrong results",
          target, gpu.id, *gpu.gfx_target,
          gpu.family ? std::string(knowledge::FamilyName(*gpu.family)) : "family unknown");
      if (out.harms && !where.empty()) {
        out.harms->push_back(std::move(harm));
        continue;
      }
      if (where.empty()) plan.refused.push_back({key, fmt::format("{}={} would run {}", key, value, harm), source});
      else plan.warnings.push_back({key, fmt::format("{} sets {}={}, which runs {}", where, key, value, harm), source});
    } else if (where.empty()) {
      plan.warnings.push_back({key,
                               fmt::format("{}: {} ({}) will load {} code objects: same family, not supported by AMD",
                                           key, gpu.id, *gpu.gfx_target, target),
                               source});
    }
  }
}

const std::vector<EnvSetting>& ForeignEnv(const KnobContext& ctx) {
  if (!ctx.foreign_env) ctx.foreign_env = ForeignEnvSettings(ctx.root);
  return *ctx.foreign_env;
}

std::vector<EnvSetting> ForeignFor(const KnobContext& ctx, std::string_view name) {
  std::vector<EnvSetting> out;
  for (const EnvSetting& s : ForeignEnv(ctx))
    if (s.name == name) out.push_back(s);
  return out;
}

std::string Where(const EnvSetting& s) { return fmt::format("{}:{}", s.file, s.line); }
std::string ValueText(const EnvSetting& s) { return s.value ? *s.value : "(computed by the shell)"; }

// An HSA_OVERRIDE_GFX_VERSION in a file rocmtune did not write (or one edited by hand): what
// it does to the GPUs here, as warnings (the file is not rocmtune's to refuse).
void CheckSetOverride(const KnobContext& ctx, const std::string& key, const EnvSetting& s, plan::Plan& plan,
                      OverrideOut out = {}) {
  const knowledge::EnvVar* var = knowledge::EnvVars::Builtin().Find("HSA_OVERRIDE_GFX_VERSION");
  if (!s.value || !knowledge::CheckEnvValue(*var, *s.value).empty()) return;
  CheckOverride(ctx, key, *s.value, plan, SettingPlace(ctx.root, s), out);
}

// rocmtune edits only its own drop-ins: a setting in another file stays whatever rocmtune does.
void WarnForeign(const KnobContext& ctx, const KnobKey& key, const std::optional<std::string>& value,
                 plan::Plan& plan) {
  const std::string text = key.Text();
  std::vector<EnvSetting> foreign = ForeignFor(ctx, key.name);
  // --admin-lines: these lines are commented out by the plan (PlanChanges), or refused there
  // naming file:line; nothing of them stays to warn about.
  if (ctx.admin_lines && !foreign.empty()) return;
  for (const EnvSetting& s : foreign) {
    const std::string at = ctx.root.Display(Where(s));
    // What an override line does to the GPUs here is said in the one warning about that line.
    std::vector<std::string> harms;
    plan::Plan scratch;
    if (key.name == "HSA_OVERRIDE_GFX_VERSION") CheckSetOverride(ctx, text, s, scratch, {.harms = &harms});
    const std::string harm = harms.empty() ? "" : fmt::format("; it runs {}", fmt::join(harms, "; and "));
    const std::string source =
        harms.empty() ? "" : std::string(knowledge::EnvVars::Builtin().Find("HSA_OVERRIDE_GFX_VERSION")->source);
    if (!value) {
      // The way out that works: the admin's line goes, by hand or by the opt-in edit that
      // comments out exactly that line (knobs/admin_lines.h) when the line allows it.
      auto content = ctx.root.ReadFile(s.file, 1 << 20);
      bool commentable = content && CheckCommentable(ctx.root, s, *content);
      plan.warnings.push_back(
          {text,
           fmt::format(
               "{} stays set to {} by {}, which rocmtune does not edit{}{} it there{}", text, ValueText(s), at, harm,
               harm.empty() ? ": remove" : ". Remove",
               commentable ? fmt::format(", or run `rocmtunectl unset {} --admin-lines` to comment it out", text) : ""),
           source});
    } else if (s.value != value) {
      plan.warnings.push_back({text,
                               fmt::format("{} is also set to {} by {}, which rocmtune does not edit: programs "
                                           "see one or the other depending on how they start{}",
                                           text, ValueText(s), at, harm),
                               source});
    } else if (!harms.empty()) {
      plan.warnings.push_back({text, fmt::format("{} sets {}={}{}", at, text, ValueText(s), harm), source});
    }
  }
}

}  // namespace

std::vector<OverrideProblem> OverrideProblems(const KnobContext& ctx, const EnvSetting& setting) {
  if (setting.name != "HSA_OVERRIDE_GFX_VERSION") return {};
  plan::Plan scratch;
  std::vector<std::string> gpus;
  CheckSetOverride(ctx, setting.name, setting, scratch, {.cross_isa = &gpus});
  std::vector<OverrideProblem> out;
  for (size_t i = 0; i < gpus.size() && i < scratch.warnings.size(); ++i)
    out.push_back({gpus[i], std::move(scratch.warnings[i])});
  return out;
}

std::map<std::string, std::string> ParseEnvironmentFile(std::string_view content) {
  std::map<std::string, std::string> out;
  for (std::string_view line : text::SplitLines(content)) {
    line = text::Trim(line);
    if (line.empty() || line.front() == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    out[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
  }
  return out;
}

void EnvBackend::Validate(const KnobContext& ctx, const KnobKey& key, const std::optional<std::string>& value,
                          plan::Plan& plan) const {
  const std::string text = key.Text();
  const knowledge::EnvVar* var = knowledge::EnvVars::Builtin().Find(key.name);
  // Removing a line from rocmtune's own drop-in is always safe, whoever added it (a variable
  // someone wrote there by hand is drift, which `reset` reports before it removes the file).
  if (!var && !value && Owned(ctx.root).count(key.name)) return;
  if (var) WarnForeign(ctx, key, value, plan);
  if (!var) {
    if (const knowledge::NotReadVar* nobody = knowledge::EnvVars::Builtin().FindNotRead(key.name)) {
      plan.refused.push_back({text, fmt::format("{}: {}; {}", text, nobody->why, nobody->hint), nobody->source});
      return;
    }
    std::string known;
    std::vector<std::string> names;
    for (const auto& v : knowledge::EnvVars::Builtin().vars()) {
      known += (known.empty() ? "" : ", ") + v.name;
      names.push_back("env." + v.name);
    }
    plan.refused.push_back({text,
                            fmt::format("{}: rocmtune only manages variables it can check ({}).{}", text, known,
                                        text::DidYouMean(text, names)),
                            ""});
    return;
  }
  if (!value) return;
  if (std::string why = knowledge::CheckEnvValue(*var, *value); !why.empty()) {
    plan.refused.push_back({text, why, var->source});
    return;
  }
  if (key.name == "HSA_OVERRIDE_GFX_VERSION") CheckOverride(ctx, text, *value, plan);
  // A debugging switch may be set (a user chasing a fault), with what it costs: `status` keeps
  // reporting it while it stays on.
  if (const knowledge::DebugVar* debug = knowledge::EnvVars::Builtin().FindDebug(key.name);
      debug && knowledge::DebugSwitchOn(*debug, *value))
    plan.warnings.push_back(
        {text, fmt::format("{}={} is a debugging switch: {}", key.name, *value, debug->cost), debug->source});
}

KnobState EnvBackend::Read(const KnobContext& ctx, const KnobKey& key) const {
  KnobState state;
  state.key = key;
  state.owner = Owner::kUnset;
  auto owned = Owned(ctx.root);
  if (auto it = owned.find(key.name); it != owned.end()) {
    state.configured = it->second;
    state.configured_in = std::string(plan::kEnvironmentDropIn);
    state.owner = Owner::kRocmtune;
  }
  for (const EnvSetting& s : ForeignFor(ctx, key.name)) {
    if (state.owner == Owner::kRocmtune) {
      if (s.value != state.configured)
        state.notes.push_back(
            fmt::format("also set to {} by {} (not rocmtune's)", ValueText(s), ctx.root.Display(Where(s))));
      continue;
    }
    if (state.configured)  // an earlier foreign source, overridden by a later one (login-shell order)
      state.notes.push_back(
          fmt::format("{} sets {}, overridden by a later file", *state.configured_in, *state.configured));
    state.configured = ValueText(s);
    state.configured_in = s.file;
    state.configured_line = s.line;
    state.owner = Owner::kAdmin;
  }
  state.effective = state.configured;
  state.notes.push_back("applies to programs started after the change (new login or user session)");
  return state;
}

void EnvBackend::PlanChanges(const KnobContext& ctx, std::span<const Assignment> set, std::span<const KnobKey> unset,
                             plan::Plan& plan) const {
  if (ctx.admin_lines) {
    for (const Assignment& a : set) PlanCommentOut(ctx.root, a.key.name, ForeignEnv(ctx), plan);
    for (const KnobKey& k : unset) PlanCommentOut(ctx.root, k.name, ForeignEnv(ctx), plan);
  }
  auto owned = Owned(ctx.root);
  auto desired = owned;
  for (const Assignment& a : set) desired[a.key.name] = a.value;
  for (const KnobKey& k : unset) desired.erase(k.name);
  if (desired == owned) return;

  std::string env_text = "# Managed by rocmtune (environment.d(5)); remove with `rocmtunectl reset`.\n";
  std::string sh_text = "# Managed by rocmtune; remove with `rocmtunectl reset`.\n";
  for (const auto& [name, value] : desired) {
    env_text += fmt::format("{}={}\n", name, value);
    sh_text += fmt::format("export {}={}\n", name, value);  // values hold no shell metacharacters (checked)
  }
  for (auto [path, text] : {std::pair{plan::kEnvironmentDropIn, env_text}, std::pair{plan::kProfileDropIn, sh_text}}) {
    plan::Op op;
    op.backend = plan::BackendId::kEnv;
    op.path = std::string(path);
    op.before = ReadOptional(ctx.root, path);
    op.kind = desired.empty() ? plan::OpKind::kRemoveFile : plan::OpKind::kWriteFile;
    if (!desired.empty()) op.after = text;
    op.reason = "environment for programs started from now on";
    if (op.before == op.after) continue;
    plan.ops.push_back(std::move(op));
  }
}

std::vector<KnobKey> EnvBackend::ConfiguredKeys(const KnobContext& ctx) const {
  std::vector<KnobKey> keys = OwnedKeys(ctx);
  // Variables set elsewhere are shown when rocmtune knows them (not PATH, LANG, ...).
  for (const EnvSetting& s : ForeignEnv(ctx)) {
    if (!knowledge::EnvVars::Builtin().Find(s.name)) continue;
    KnobKey key{KnobKind::kEnv, "", "", s.name};
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  return keys;
}

std::vector<KnobKey> EnvBackend::OwnedKeys(const KnobContext& ctx) const {
  std::vector<KnobKey> keys;
  for (const auto& [name, value] : Owned(ctx.root)) keys.push_back({KnobKind::kEnv, "", "", name});
  return keys;
}

std::vector<std::string> EnvBackend::Describe(const KnobContext&, const KnobKey& key) const {
  const knowledge::EnvVar* var = knowledge::EnvVars::Builtin().Find(key.name);
  if (!var) return {};
  return {var->description, fmt::format("source: {}", var->source)};
}

}  // namespace rocmtune::knobs
