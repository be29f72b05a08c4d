#include "knobs/registry.h"

#include <algorithm>

#include "boot/grub_config.h"
#include "knobs/cmdline_backend.h"
#include "knobs/env_backend.h"
#include "knobs/modprobe_backend.h"
#include "knobs/service_backend.h"
#include "knobs/sysfs_backend.h"

namespace rocmtune::knobs {

const Registry& Registry::Builtin() {
  static const Registry registry = [] {
    Registry r;
    r.backends_.push_back(MakeModprobeBackend());
    r.backends_.push_back(MakeCmdlineBackend());
    r.backends_.push_back(MakeSysfsBackend());
    r.backends_.push_back(MakeEnvBackend());
    r.backends_.push_back(MakeServiceBackend());
    return r;
  }();
  return registry;
}

const Backend* Registry::For(const KnobKey& key) const {
  for (const auto& b : backends_)
    if (b->Handles(key)) return b.get();
  return nullptr;
}

std::vector<KnobKey> WatchedKeys() {
  return {*ParseKnobKey("amdgpu.noretry"), *ParseKnobKey("ttm.pages_limit"), *ParseKnobKey("cmdline.iommu")};
}

std::vector<KnobState> ReportKnobs(const KnobContext& ctx) {
  std::vector<KnobKey> keys;
  auto add = [&](const KnobKey& k) {
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  };
  // Under amdgpu-dkms the limit that counts is amdttm's: its row is shown before rocmtune sets it.
  if (ctx.root.IsDirectory("sys/module/amdttm")) add(*ParseKnobKey("amdttm.pages_limit"));
  for (const KnobKey& k : WatchedKeys()) {
    // Module parameters only where the module is there to have them.
    if (k.kind == KnobKind::kModuleParam &&
        !(k.module == "amdgpu" ? ctx.inventory.system.amdgpu : ctx.inventory.system.ttm).loaded)
      continue;
    add(k);
  }
  for (const auto& b : Registry::Builtin().backends())
    for (const KnobKey& k : b->ConfiguredKeys(ctx)) add(k);
  std::vector<KnobState> states;
  for (const KnobKey& k : keys)
    if (const Backend* b = Registry::Builtin().For(k)) states.push_back(b->Read(ctx, k));
  return states;
}

}  // namespace rocmtune::knobs
