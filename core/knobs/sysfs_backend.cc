#include "knobs/sysfs_backend.h"

#include <algorithm>

#include <fmt/format.h>

#include "detect/finding_ids.h"
#include "knobs/runtime_state.h"
#include "plan/owned_paths.h"
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

// Does `key` (cardN, a PCI address or all) name the device of a recorded setting?
bool Names(const KnobContext& ctx, const KnobKey& key, const RuntimeSetting& r) {
  if (r.attribute != key.name) return false;
  if (key.target == "all" || key.target == r.device) return true;
  for (const detect::Gpu* gpu : Targets(ctx, key.target))
    if (gpu->id == r.device) return true;
  return false;
}

const detect::Gpu* GpuById(const KnobContext& ctx, std::string_view id) {
  for (const detect::Gpu& g : ctx.inventory.gpus)
    if (g.id == id) return &g;
  return nullptr;
}

plan::Op WriteOp(const detect::Gpu& gpu, std::string_view name, std::optional<std::string> before, std::string after,
                 std::string reason) {
  plan::Op op;
  op.kind = plan::OpKind::kWriteSysfs;
  op.backend = plan::BackendId::kSysfs;
  op.path = fmt::format("{}/{}", *gpu.device_dir, name);
  op.before = std::move(before);
  op.after = std::move(after);
  op.reason = std::move(reason);
  return op;
}

// What rocmtune keeps set changes with the attributes, in the same transaction.
void AddStateOp(const KnobContext& ctx, const std::vector<RuntimeSetting>& state, plan::Plan& plan) {
  plan::Op op;
  op.backend = plan::BackendId::kSysfs;
  op.path = std::string(plan::kRuntimeState);
  op.before = ReadOptional(ctx.root, plan::kRuntimeState);
  if (!state.empty()) op.after = RuntimeStateText(state);
  op.kind = op.after ? plan::OpKind::kWriteFile : plan::OpKind::kRemoveFile;
  op.reason = "the runtime settings rocmtune keeps (re-applied after a GPU reset or reboot) and their values before";
  if (op.before == op.after) return;
  plan.ops.push_back(std::move(op));
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
  // What rocmtune recorded for a device that is gone can still be forgotten.
  const auto recorded = DesiredRuntime(ctx.root);
  bool forgettable = !value && std::any_of(recorded.begin(), recorded.end(), [&](const RuntimeSetting& r) {
    return r.device == key.target && r.attribute == key.name;
  });
  if (gpus.empty() && !forgettable) {
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
  // What rocmtune keeps set: its value is the configured one, until a reset or unset.
  std::vector<std::string> wanted;
  for (const RuntimeSetting& r : DesiredRuntime(ctx.root))
    if (Names(ctx, key, r)) wanted.push_back(r.value);
  if (!wanted.empty()) {
    state.owner = Owner::kRocmtune;
    state.configured_in = std::string(plan::kRuntimeState);
    bool same = std::all_of(wanted.begin(), wanted.end(), [&](const auto& v) { return v == wanted[0]; });
    std::string joined;
    for (const auto& v : wanted) joined += (joined.empty() ? "" : ", ") + v;
    state.configured = same ? wanted[0] : joined;
  }
  return state;
}

namespace {

// Another program that writes GPU attributes (detect/other_writers.h, its writer.* finding):
// said before the write, with what it will do. power-profiles-daemon's action writes only the
// performance level, GameMode's too; tuned the attributes of its [sysfs] lines; LACT and CoreCtrl
// write whatever their profiles set.
void WarnOtherWriters(const KnobContext& ctx, const KnobKey& key, plan::Plan& plan) {
  using detect::FindingId;
  for (const detect::Finding& f : ctx.inventory.findings) {
    bool ppd = f.id == detect::FindingName(FindingId::kWriterPowerProfilesDaemon) &&
               f.severity == detect::Severity::kWarning && key.name == "power_dpm_force_performance_level";
    bool other =
        f.id == detect::FindingName(FindingId::kWriterLact) || f.id == detect::FindingName(FindingId::kWriterCoreCtrl);
    // tuned's finding lists its [sysfs] lines; GameMode's [gpu] sets only the performance level.
    bool tuned = f.id == detect::FindingName(FindingId::kWriterTuned) && f.severity == detect::Severity::kWarning &&
                 f.what.find(fmt::format("/{}=", key.name)) != std::string::npos;
    bool gamemode =
        f.id == detect::FindingName(FindingId::kWriterGameMode) && key.name == "power_dpm_force_performance_level";
    if (ppd || other || tuned || gamemode)
      plan.warnings.push_back({key.Text(),
                               f.fix.text.empty() ? fmt::format("{}: {}", key.Text(), f.what)
                                                  : fmt::format("{}: {}. {}", key.Text(), f.what, f.fix.text),
                               detect::SourceText(f)});
  }
}

}  // namespace

void SysfsBackend::PlanChanges(const KnobContext& ctx, std::span<const Assignment> set, std::span<const KnobKey> unset,
                               plan::Plan& plan) const {
  std::vector<RuntimeSetting> state = DesiredRuntime(ctx.root);
  auto recorded = [&](std::string_view device, std::string_view name) {
    return std::find_if(state.begin(), state.end(),
                        [&](const RuntimeSetting& r) { return r.device == device && r.attribute == name; });
  };
  for (const Assignment& a : set) {
    const Attribute* attr = FindSysfsAttribute(a.key.name);
    WarnOtherWriters(ctx, a.key, plan);
    for (const detect::Gpu* gpu : Targets(ctx, a.key.target)) {
      auto raw = ReadAttr(ctx, *gpu, a.key.name);
      auto current = Current(ctx, *gpu, a.key.name);
      if (!raw || !attr) continue;
      auto it = recorded(gpu->id, a.key.name);
      if (current != a.value) {
        auto encoded = attr->codec->Encode(*raw, a.value);
        if (!encoded) continue;  // refused by Validate
        std::string reason =
            fmt::format("{} on {} ({} -> {})", a.key.name, gpu->id, current.value_or("unknown"), a.value);
        if (RuntimeSuspended(ctx, *gpu))
          reason += "; the device is runtime-suspended: the write wakes it, the value holds until the next GPU reset";
        plan.ops.push_back(WriteOp(*gpu, a.key.name, current, std::move(*encoded), std::move(reason)));
      }
      // The value before is the one found when rocmtune first set it; back at it, nothing is kept.
      if (it != state.end()) {
        if (it->before == a.value) state.erase(it);
        else it->value = a.value;
      } else if (current && current != a.value && IsRuntimeWord(*current) && IsRuntimeWord(a.value)) {
        state.push_back({gpu->id, a.key.name, a.value, *current});
      }
    }
  }
  for (const KnobKey& k : unset) {
    bool any = false;
    for (auto it = state.begin(); it != state.end();) {
      if (!Names(ctx, k, *it)) {
        ++it;
        continue;
      }
      any = true;
      const Attribute* attr = FindSysfsAttribute(it->attribute);
      const detect::Gpu* gpu = GpuById(ctx, it->device);
      auto raw = gpu ? ReadAttr(ctx, *gpu, it->attribute) : std::nullopt;
      if (!gpu || !raw || !attr) {
        plan.warnings.push_back({k.Text(),
                                 fmt::format("{}: {} is not here to write {} back to; rocmtune forgets its setting",
                                             k.Text(), it->device, it->before),
                                 ""});
      } else if (attr->codec->Current(*raw) != it->before) {
        auto encoded = attr->codec->EncodeRestore(*raw, it->before);
        if (!encoded) {
          plan.refused.push_back({k.Text(), fmt::format("{}: {} {}", k.Text(), it->device, encoded.error().message),
                                  std::string(attr->source)});
        } else {
          auto current = attr->codec->Current(*raw);
          plan.ops.push_back(WriteOp(*gpu, it->attribute, current, std::move(*encoded),
                                     fmt::format("{} on {} back to its value before rocmtune ({} -> {})", it->attribute,
                                                 it->device, current.value_or("unknown"), it->before)));
        }
      }
      it = state.erase(it);
    }
    if (!any)
      plan.warnings.push_back({k.Text(),
                               fmt::format("{}: rocmtune keeps no setting of it; the attribute returns to the "
                                           "driver's default at the next boot or GPU reset",
                                           k.Text()),
                               ""});
  }
  AddStateOp(ctx, state, plan);
}

std::vector<KnobKey> SysfsBackend::ConfiguredKeys(const KnobContext& ctx) const { return OwnedKeys(ctx); }

// What rocmtune keeps set, by the device's PCI address: what `reset` puts back.
std::vector<KnobKey> SysfsBackend::OwnedKeys(const KnobContext& ctx) const {
  std::vector<KnobKey> keys;
  for (const RuntimeSetting& r : DesiredRuntime(ctx.root)) {
    KnobKey key{KnobKind::kSysfs, "", r.device, r.attribute};
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(std::move(key));
  }
  return keys;
}

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
