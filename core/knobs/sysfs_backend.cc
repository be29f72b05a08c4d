#include "knobs/sysfs_backend.h"

#include <algorithm>

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
std::optional<std::string> Current(const KnobContext& ctx, const detect::Gpu& gpu, std::string_view name) {
  auto raw = ReadAttr(ctx, gpu, name);
  if (!raw) return std::nullopt;
  if (const Attribute* attr = FindSysfsAttribute(name)) return attr->codec->Current(*raw);
  std::string v = text::Clean(*raw);
  return v.empty() ? std::nullopt : std::optional(v);
}

bool RuntimeSuspended(const KnobContext& ctx, const detect::Gpu& gpu) {
  if (!gpu.device_dir) return false;
  auto status = ctx.root.ReadFile(*gpu.device_dir + "/power/runtime_status", 64);
  return status && text::Clean(*status) == "suspended";
}

}  // namespace

void SysfsBackend::Validate(const KnobContext& ctx, const KnobKey& key, const std::optional<std::string>& value,
                            plan::Plan& plan) const {
  const std::string text = key.Text();
  const Attribute* attr = FindSysfsAttribute(key.name);
  if (!attr) {
    std::string names;
    for (const Attribute& a : SysfsAttributes()) names += (names.empty() ? "" : ", ") + std::string(a.name);
    plan.refused.push_back(
        {text,
         fmt::format("{}: rocmtune does not manage the sysfs attribute '{}' (managed: {})", text, key.name, names),
         ""});
    return;
  }
  auto gpus = Targets(ctx, key.target);
  if (gpus.empty()) {
    plan.refused.push_back(
        {text, fmt::format("{}: no amdgpu GPU is '{}' (use cardN, a PCI slot or all)", text, key.target), ""});
    return;
  }
  if (!value) return;
  // A value no device takes is refused before any device is read.
  if (!attr->codec->FixedValues().empty()) {
    if (auto encoded = attr->codec->Encode("", *value); !encoded) {
      plan.refused.push_back({text, fmt::format("{}: {}", text, encoded.error().message), std::string(attr->source)});
      return;
    }
  }
  for (const detect::Gpu* gpu : gpus) {
    std::string error;
    auto raw = ReadAttr(ctx, *gpu, key.name, &error);
    if (!raw) {
      plan.refused.push_back({text,
                              fmt::format("{}: {} has no readable {}{}", text, gpu->id, key.name,
                                          error.empty() ? " (no sysfs device)" : ": " + error),
                              std::string(attr->source)});
      continue;
    }
    if (auto encoded = attr->codec->Encode(*raw, *value); !encoded) {
      plan.refused.push_back(
          {text, fmt::format("{}: {} {}", text, gpu->id, encoded.error().message), std::string(attr->source)});
    } else if (attr->codec->Current(*raw) != *value && !attr->codec->Restorable(*raw)) {
      // What could not be put back is not changed: `revert` and a rollback write the value read now.
      plan.refused.push_back(
          {text,
           fmt::format("{}: {} reads {} for {}, which rocmtune could not write back; not changed", text, gpu->id,
                       attr->codec->Current(*raw).value_or("no value it can name"), key.name),
           std::string(attr->source)});
    }
  }
}

KnobState SysfsBackend::Read(const KnobContext& ctx, const KnobKey& key) const {
  KnobState state;
  state.key = key;
  state.owner = Owner::kKernel;
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
      const Attribute* attr = FindSysfsAttribute(a.key.name);
      auto encoded = attr ? attr->codec->Encode(*raw, a.value) : Result<std::string>(a.value);
      if (!encoded) continue;  // refused by Validate
      const std::string& write = *encoded;
      plan::Op op;
      op.kind = plan::OpKind::kWriteSysfs;
      op.backend = plan::BackendId::kSysfs;
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
    plan.warnings.push_back({k.Text(),
                             fmt::format("{}: a runtime attribute has no stored setting to remove; it returns "
                                         "to the driver's default at the next boot or GPU reset",
                                         k.Text()),
                             ""});
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
