#include "knobs/sysfs_backend.h"

#include <algorithm>
#include <array>
#include <cctype>

#include <fmt/format.h>

#include "util/text.h"

namespace rocmtune::knobs {

namespace {

class SysfsBackend final : public Backend {
 public:
  std::string_view Name() const override { return "sysfs"; }
  bool Handles(const KnobKey& key) const override { return key.kind == KnobKind::kSysfs; }
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

std::unique_ptr<Backend> MakeSysfsBackend() { return std::make_unique<SysfsBackend>(); }

namespace {

using Attribute = SysfsAttribute;

const std::array<Attribute, 3>& Attributes() {
  static const std::array<Attribute, 3> kAttributes = {{
      {"power_dpm_force_performance_level",
       {"auto", "low", "high", "manual", "profile_standard", "profile_min_sclk", "profile_min_mclk", "profile_peak",
        "perf_determinism"},
       "DPM performance level: auto lets the SMU choose; high/profile_peak pin clocks (profile_* also disable clock "
       "and power gating); manual is needed before pp_dpm_* writes.",
       "drivers/gpu/drm/amd/pm/amdgpu_pm.c amdgpu_set_power_dpm_force_performance_level(); "
       "Documentation/gpu/amdgpu/thermal.rst"},
      {"pp_power_profile_mode", {},
       "Workload profile the SMU optimises for, by name (BOOTUP_DEFAULT, 3D_FULL_SCREEN, POWER_SAVING, VIDEO, VR, "
       "COMPUTE); rocmtune writes the index this device lists for the name.",
       "drivers/gpu/drm/amd/pm/amdgpu_pm.c amdgpu_set_pp_power_profile_mode(); Documentation/gpu/amdgpu/thermal.rst"},
      {"power_dpm_state", {"battery", "balanced", "performance"},
       "Legacy DPM state; ignored by SMU-based (Vega and newer) parts.",
       "drivers/gpu/drm/amd/pm/amdgpu_pm.c amdgpu_set_power_dpm_state()"},
  }};
  return kAttributes;
}

std::vector<const detect::Gpu*> Targets(const KnobContext& ctx, std::string_view target) {
  std::vector<const detect::Gpu*> out;
  for (const detect::Gpu& g : ctx.inventory.gpus)
    if (target == "all" || g.card == target || g.id == target) out.push_back(&g);
  return out;
}

std::optional<std::string> ReadAttr(const KnobContext& ctx, const detect::Gpu& gpu, std::string_view attr,
                                    std::string* error = nullptr) {
  if (!gpu.device_dir) return std::nullopt;
  auto content = ctx.root.ReadFile(fmt::format("{}/{}", *gpu.device_dir, attr), 64 * 1024);
  if (!content) {
    if (error) *error = content.error().message;
    return std::nullopt;
  }
  return std::string(*content);
}

// The current value as a person names it.
std::optional<std::string> Current(const KnobContext& ctx, const detect::Gpu& gpu, std::string_view attr) {
  auto raw = ReadAttr(ctx, gpu, attr);
  if (!raw) return std::nullopt;
  if (attr == "pp_power_profile_mode") {
    for (const PowerProfile& p : ParsePowerProfiles(*raw))
      if (p.active) return p.name;
    return std::nullopt;
  }
  std::string v = text::Clean(*raw);
  return v.empty() ? std::nullopt : std::optional(v);
}

bool RuntimeSuspended(const KnobContext& ctx, const detect::Gpu& gpu) {
  if (!gpu.device_dir) return false;
  auto status = ctx.root.ReadFile(*gpu.device_dir + "/power/runtime_status", 64);
  return status && text::Clean(*status) == "suspended";
}

}  // namespace

std::span<const SysfsAttribute> SysfsAttributes() { return Attributes(); }

const SysfsAttribute* FindSysfsAttribute(std::string_view name) {
  for (const SysfsAttribute& a : Attributes())
    if (a.name == name) return &a;
  return nullptr;
}

std::vector<PowerProfile> ParsePowerProfiles(std::string_view content) {
  std::vector<PowerProfile> out;
  std::string clean;
  for (char c : content)
    if (c != '\0') clean.push_back(c);
  for (std::string_view line : text::SplitLines(clean)) {
    line = text::Trim(line);
    size_t digits = 0;
    while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits]))) ++digits;
    size_t colon = line.find(':');
    if (digits == 0 || colon == std::string_view::npos || colon < digits) continue;
    std::string_view middle = text::Trim(line.substr(digits, colon - digits));
    PowerProfile p;
    p.index = static_cast<int>(*text::ParseU64(line.substr(0, digits)));
    if (!middle.empty() && middle.back() == '*') {
      p.active = true;
      middle = text::Trim(middle.substr(0, middle.size() - 1));
    }
    if (middle.empty() || middle.find(' ') != std::string_view::npos) continue;
    p.name = std::string(middle);
    out.push_back(std::move(p));
  }
  return out;
}

void SysfsBackend::Validate(const KnobContext& ctx, const KnobKey& key, const std::optional<std::string>& value,
                            plan::Plan& plan) const {
  const std::string text = key.Text();
  const Attribute* attr = FindSysfsAttribute(key.name);
  if (!attr) {
    std::string names;
    for (const Attribute& a : Attributes()) names += (names.empty() ? "" : ", ") + std::string(a.name);
    plan.refused.push_back({text, fmt::format("{}: rocmtune does not manage the sysfs attribute '{}' (managed: {})", text, key.name, names), ""});
    return;
  }
  auto gpus = Targets(ctx, key.target);
  if (gpus.empty()) {
    plan.refused.push_back({text, fmt::format("{}: no amdgpu GPU is '{}' (use cardN, a PCI slot or all)", text, key.target), ""});
    return;
  }
  if (!value) return;
  if (!attr->values.empty() && std::find(attr->values.begin(), attr->values.end(), *value) == attr->values.end()) {
    std::string accepted;
    for (auto v : attr->values) accepted += (accepted.empty() ? "" : ", ") + std::string(v);
    plan.refused.push_back({text, fmt::format("{}: '{}' is not accepted (values: {})", text, *value, accepted), std::string(attr->source)});
    return;
  }
  for (const detect::Gpu* gpu : gpus) {
    std::string error;
    auto raw = ReadAttr(ctx, *gpu, key.name, &error);
    if (!raw) {
      plan.refused.push_back({text, fmt::format("{}: {} has no readable {}{}", text, gpu->id, key.name,
                                                error.empty() ? " (no sysfs device)" : ": " + error), std::string(attr->source)});
      continue;
    }
    if (key.name == "pp_power_profile_mode") {
      auto profiles = ParsePowerProfiles(*raw);
      bool known = std::any_of(profiles.begin(), profiles.end(), [&](const PowerProfile& p) { return p.name == *value; });
      if (!known || *value == "CUSTOM") {
        std::string names;
        for (const auto& p : profiles)
          if (p.name != "CUSTOM") names += (names.empty() ? "" : ", ") + p.name;
        plan.refused.push_back({text, fmt::format("{}: {} offers no profile '{}' (it has: {}; CUSTOM needs parameters "
                                                  "and is not managed)", text, gpu->id, *value, names),
                                std::string(attr->source)});
      }
    }
  }
}

KnobState SysfsBackend::Read(const KnobContext& ctx, const KnobKey& key) const {
  KnobState state;
  state.key = key;
  state.owner = "kernel";
  std::vector<std::string> values;
  for (const detect::Gpu* gpu : Targets(ctx, key.target)) {
    auto v = Current(ctx, *gpu, key.name);
    values.push_back(v.value_or("unknown"));
    if (RuntimeSuspended(ctx, *gpu)) state.notes.push_back(fmt::format("{} is runtime-suspended", gpu->id));
  }
  if (!values.empty() && std::all_of(values.begin(), values.end(), [&](const auto& v) { return v == values[0]; })) {
    if (values[0] != "unknown") state.running = values[0];
  } else if (!values.empty()) {
    std::string joined;
    for (const auto& v : values) joined += (joined.empty() ? "" : ", ") + v;
    state.running = joined;
  }
  state.effective = state.running;
  return state;
}

void SysfsBackend::PlanChanges(const KnobContext& ctx, std::span<const Assignment> set, std::span<const KnobKey> unset,
                               plan::Plan& plan) const {
  for (const Assignment& a : set) {
    for (const detect::Gpu* gpu : Targets(ctx, a.key.target)) {
      auto raw = ReadAttr(ctx, *gpu, a.key.name);
      auto current = Current(ctx, *gpu, a.key.name);
      if (!raw || current == a.value) continue;
      std::string write = a.value;
      if (a.key.name == "pp_power_profile_mode")
        for (const PowerProfile& p : ParsePowerProfiles(*raw))
          if (p.name == a.value) write = std::to_string(p.index);
      plan::Op op;
      op.kind = plan::OpKind::kWriteSysfs;
      op.backend = "sysfs";
      op.path = fmt::format("{}/{}", *gpu->device_dir, a.key.name);
      op.before = current;
      op.after = write;
      op.reason = fmt::format("{} on {} ({} -> {})", a.key.name, gpu->id, current.value_or("unknown"), a.value);
      if (RuntimeSuspended(ctx, *gpu))
        op.reason += "; the device is runtime-suspended: the write wakes it, the value holds until the next GPU reset";
      plan.ops.push_back(std::move(op));
    }
  }
  for (const KnobKey& k : unset)
    plan.warnings.push_back({k.Text(), fmt::format("{}: a runtime attribute has no stored setting to remove; it returns "
                                                   "to the driver's default at the next boot or GPU reset", k.Text()), ""});
}

std::vector<KnobKey> SysfsBackend::ConfiguredKeys(const KnobContext&) const { return {}; }

// Runtime attributes have no stored setting; what rocmtune wrote is undone by `revert`.
std::vector<KnobKey> SysfsBackend::OwnedKeys(const KnobContext&) const { return {}; }

std::vector<std::string> SysfsBackend::Describe(const KnobContext& ctx, const KnobKey& key) const {
  const Attribute* attr = FindSysfsAttribute(key.name);
  if (!attr) return {};
  std::vector<std::string> lines{std::string(attr->description)};
  for (const detect::Gpu* gpu : Targets(ctx, key.target))
    lines.push_back(fmt::format("on {}: {}", gpu->id, Current(ctx, *gpu, key.name).value_or("not readable")));
  lines.push_back("takes effect now; not kept across reboots or GPU resets by the kernel");
  lines.push_back(fmt::format("source: {}", attr->source));
  return lines;
}

}  // namespace rocmtune::knobs
