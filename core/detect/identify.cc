#include "detect/identify.h"

#include <fmt/format.h>

#include "knowledge/gfx_targets.h"
#include "knowledge/gpu_table.h"

namespace rocmtune::detect {

using knowledge::GfxTarget;
using knowledge::GfxTargetTable;
using knowledge::GpuModel;
using knowledge::GpuTable;

std::string MarketingName(const RawIds& raw, const knowledge::AmdgpuIds* system_ids) {
  const knowledge::AmdgpuIds& bundled = knowledge::AmdgpuIds::Builtin();
  if (raw.device_id) {
    if (raw.revision) {
      if (auto name = bundled.Lookup(*raw.device_id, *raw.revision)) return *name;
      if (system_ids)
        if (auto name = system_ids->Lookup(*raw.device_id, *raw.revision)) return *name;
    } else {
      // Without the revision a name is only certain when all revisions share it.
      if (auto name = bundled.LookupAnyRevision(*raw.device_id)) return *name;
      if (system_ids)
        if (auto name = system_ids->LookupAnyRevision(*raw.device_id)) return *name;
    }
  }
  if (raw.product_name) return *raw.product_name;
  // The product line the device id belongs to ("AMD Radeon RX 5600 XT / 5700 / 5700 XT (Navi10)")
  // is still true when the exact board cannot be named.
  if (raw.device_id)
    if (const knowledge::GpuModel* model = knowledge::GpuTable::Builtin().ByDeviceId(*raw.device_id))
      return fmt::format("AMD {}", model->product);
  if (raw.device_id) return fmt::format("AMD Radeon Graphics (1002:{:04x})", *raw.device_id);
  return "AMD Radeon Graphics";
}

Identity Identify(const RawIds& raw, const knowledge::AmdgpuIds* system_ids) {
  const GfxTargetTable& targets = GfxTargetTable::Builtin();
  const GpuModel* model = raw.device_id ? GpuTable::Builtin().ByDeviceId(*raw.device_id) : nullptr;
  Identity id;
  id.source = "none";
  const GfxTarget* target = nullptr;

  if (raw.gfx_target_version && *raw.gfx_target_version > 0) {
    id.gfx_target_version = raw.gfx_target_version;
    id.gfx_target = knowledge::GfxNameFromVersion(*raw.gfx_target_version);
    target = targets.ByVersion(*raw.gfx_target_version);
    id.source = "kfd";
  } else if (raw.gc_ip) {
    auto candidates = targets.ByGcIp(*raw.gc_ip);
    if (candidates.size() == 1) {
      target = candidates.front();
      id.source = "ip_discovery";
    }
  }
  if (!target && !id.gfx_target && model && model->gfx_target_version) {
    target = targets.ByVersion(*model->gfx_target_version);
    id.source = "pci_table";
  }
  if (target && !id.gfx_target) {
    id.gfx_target = target->name;
    id.gfx_target_version = target->version;
  }
  if (!id.gfx_target && model && model->gfx_target) {
    id.gfx_target = model->gfx_target;
    id.source = "pci_table";
  }

  id.gc_ip = raw.gc_ip;
  if (!id.gc_ip && target && target->gc_ips.size() == 1) id.gc_ip = target->gc_ips.front();
  if (!id.gc_ip && model) id.gc_ip = model->gc_ip;

  // The per-device row knows what the ISA alone cannot (gfx803: Fiji is GCN3, Polaris GCN4).
  if (target) id.family = target->family;
  if (!id.family && model) id.family = model->family;
  if (target) id.apu = target->apu;
  if (!id.apu && model) id.apu = model->apu;

  id.marketing_name = MarketingName(raw, system_ids);
  return id;
}

}  // namespace rocmtune::detect
