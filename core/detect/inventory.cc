#include "detect/inventory.h"

#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "detect/driver_binding.h"
#include "detect/drm_cards.h"
#include "detect/finding_ids.h"
#include "detect/identify.h"
#include "detect/kfd_io_links.h"
#include "detect/kfd_topology.h"
#include "detect/libdrm_probe.h"
#include "detect/pci_gpus.h"
#include "knowledge/amdgpu_ids.h"
#include "knowledge/gpu_table.h"

namespace rocmtune::detect {
namespace {

constexpr uint16_t kAmdVendor = 0x1002;

std::unique_ptr<knowledge::AmdgpuIds> LoadSystemIds(const sys::Root& root) {
  auto content = root.ReadFile("usr/share/libdrm/amdgpu.ids", 4 << 20);
  if (!content) return nullptr;
  auto ids = knowledge::AmdgpuIds::Parse(*content, root.Display("usr/share/libdrm/amdgpu.ids"));
  if (!ids) return nullptr;
  return std::make_unique<knowledge::AmdgpuIds>(std::move(*ids));
}

Gpu FromParts(const DrmCard* card, const KfdNode* node, const knowledge::AmdgpuIds* system_ids) {
  Gpu gpu;
  RawIds raw;
  std::optional<PciAddress> address;
  std::optional<uint16_t> vendor;
  if (card) {
    gpu.card = card->card;
    gpu.device_dir = card->device_dir;
    gpu.render_node = card->render_node;
    gpu.subsystem = card->subsystem;
    gpu.vram_bytes = card->vram_total;
    gpu.visible_vram_bytes = card->visible_vram_total;
    address = card->address;
    vendor = card->vendor_id;
    raw.device_id = card->device_id;
    raw.revision = card->revision;
    raw.gc_ip = card->gc_ip;
    raw.product_name = card->product_name;
  }
  if (node) {
    gpu.kfd_node = node->node;
    gpu.kfd_unique_id = node->unique_id;
    if (!address) address = node->address;
    if (!vendor) vendor = node->vendor_id;
    if (!raw.device_id) raw.device_id = node->device_id;
    raw.gfx_target_version = node->gfx_target_version;
    if (!gpu.render_node && node->drm_render_minor && *node->drm_render_minor > 0)
      gpu.render_node = fmt::format("renderD{}", *node->drm_render_minor);
  }
  gpu.id = address ? address->ToString() : (card ? card->card : fmt::format("kfd-node-{}", node->node));
  gpu.device_id = raw.device_id;
  if (raw.device_id) gpu.pci_id = fmt::format("{:04x}:{:04x}", vendor.value_or(kAmdVendor), *raw.device_id);
  if (raw.revision) gpu.revision = fmt::format("{:#04x}", *raw.revision);

  Identity identity = Identify(raw, system_ids);
  gpu.gfx_target = identity.gfx_target;
  gpu.gfx_target_version = identity.gfx_target_version;
  gpu.gc_ip = identity.gc_ip;
  gpu.family = identity.family;
  gpu.apu = identity.apu;
  gpu.marketing_name = identity.marketing_name;
  gpu.identified_by = identity.source;
  // KFD's local heap is VRAM only on a dGPU; on an APU it is carved from system memory.
  if (!gpu.vram_bytes && node && identity.apu == false) gpu.vram_bytes = node->local_memory_bytes;
  gpu.physical_id = gpu.id;
  return gpu;
}

// Partitions of one device (MI300 CPX: one KFD node per XCD) report the same unique_id;
// the first of them names the physical GPU.
void GroupPartitions(std::vector<Gpu>& gpus, const std::map<int, uint64_t>& unique_by_node) {
  std::map<uint64_t, std::string> physical_by_unique;
  for (Gpu& gpu : gpus) {
    if (!gpu.kfd_node) continue;
    auto it = unique_by_node.find(*gpu.kfd_node);
    if (it == unique_by_node.end() || it->second == 0) continue;
    auto [slot, inserted] = physical_by_unique.emplace(it->second, gpu.id);
    gpu.physical_id = slot->second;
  }
}

// `kfd`: whether KFD's topology is there at all (sys/class/kfd/kfd/topology/nodes).
void ReportIdentityGaps(const std::vector<Gpu>& gpus, bool kfd, std::vector<Finding>& findings) {
  const size_t first = findings.size();
  for (const Gpu& gpu : gpus) {
    const knowledge::GpuModel* model =
        gpu.device_id ? knowledge::GpuTable::Builtin().ByDeviceId(*gpu.device_id) : nullptr;
    if (!gpu.gfx_target && model && !model->gfx_target)
      findings.push_back({.id = FindingName(FindingId::kGpuNoRocmIsa),
                          .severity = Severity::kWarning,
                          .subject = gpu.id,
                          .what = fmt::format("{}: {} ({}) has no ROCm ISA: amdgpu offers no compute (KFD) for this "
                                              "generation; rocmtune can only report it",
                                              gpu.id, gpu.marketing_name, model->product)});
    else if (!gpu.gfx_target)
      findings.push_back(
          {.id = FindingName(FindingId::kGpuGfxTargetUnknown),
           .severity = Severity::kWarning,
           .subject = gpu.id,
           .what = fmt::format("{}: the gfx target could not be determined (no KFD node, no ip_discovery, "
                               "device id not in rocmtune's table)",
                               gpu.id)});
    else if (!gpu.family)
      findings.push_back({.id = FindingName(FindingId::kGpuNotRocmFamily),
                          .severity = Severity::kInfo,
                          .subject = gpu.id,
                          .what = fmt::format("{}: {} is not a GPU family ROCm targets", gpu.id, *gpu.gfx_target)});
    // ROCm programs reach a GPU only through KFD (/dev/kfd and its topology): a GPU KFD does not
    // list is not usable by them, whatever amdgpu's DRM side shows (linux amdkfd kfd_topology.c).
    if (!gpu.kfd_node && gpu.card && gpu.gfx_target)
      findings.push_back(
          {.id = FindingName(FindingId::kGpuNoKfd),
           .severity = Severity::kError,
           .subject = gpu.id,
           .what =
               kfd ? fmt::format("{}: KFD's topology does not list this GPU: ROCm programs cannot use it", gpu.id)
                   : fmt::format("{}: there is no KFD (no /sys/class/kfd): ROCm programs cannot use any GPU", gpu.id),
           .fix = {.text = kfd ? "Check dmesg for 'kfd' lines about this device (skipped device, PCI rejects atomics)"
                               : "Load amdgpu from a kernel built with CONFIG_HSA_AMD=y (Debian's, Ubuntu's and "
                                 "Fedora's are)"},
           .sources = {
               "linux drivers/gpu/drm/amd/amdkfd/kfd_topology.c; drivers/gpu/drm/amd/amdkfd/Kconfig (HSA_AMD)"}});
  }
  // Each says what one GPU does (programs cannot run on it) except the family note.
  for (size_t i = first; i < findings.size(); ++i)
    if (findings[i].severity != Severity::kInfo) findings[i].gpu = findings[i].subject;
}

void ApplyIommuGroups(const sys::Root& root, const std::vector<Gpu>& gpus, IommuState& iommu) {
  for (const Gpu& gpu : gpus) {
    if (!gpu.device_dir) continue;
    auto type = IommuGroupType(root, *gpu.device_dir);
    if (!type) continue;
    iommu.mode = *type == "identity" ? "passthrough" : "translated";
    iommu.evidence = fmt::format("IOMMU group of {} has type {}", gpu.id, *type);
    return;
  }
}

// The KFD node of a card: same PCI address, else the same render node (KFD's
// drm_render_minor), for setups where the addresses disagree (passthrough VMs).
const KfdNode* MatchNode(const DrmCard& card, const std::vector<KfdNode>& nodes, std::vector<bool>& used) {
  auto take = [&](auto&& same) -> const KfdNode* {
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (!used[i] && same(nodes[i])) {
        used[i] = true;
        return &nodes[i];
      }
    }
    return nullptr;
  };
  if (card.address)
    if (auto* n = take([&](const KfdNode& node) { return node.address == card.address; })) return n;
  if (card.render_node)
    return take([&](const KfdNode& node) {
      return node.drm_render_minor && card.render_node == fmt::format("renderD{}", *node.drm_render_minor);
    });
  return nullptr;
}

}  // namespace

Inventory Detect(const sys::Root& root, const DetectOptions& options) {
  Inventory inv;
  inv.system = DetectSystemFacts(root, inv.findings);
  std::unique_ptr<knowledge::AmdgpuIds> system_ids = LoadSystemIds(root);

  std::vector<DrmCard> cards = ScanDrmCards(root, inv.findings);
  std::vector<KfdNode> nodes = ScanKfdGpuNodes(root, inv.findings);
  PciScan pci = ScanPciGpus(root, inv.findings);

  std::vector<bool> node_used(nodes.size(), false);
  std::vector<std::string> seen_addresses;
  for (const DrmCard& card : cards) {
    if (card.driver != "amdgpu") continue;  // ReportNotAmdgpu says what drives it
    if (card.address) {
      std::string addr = card.address->ToString();
      if (std::find(seen_addresses.begin(), seen_addresses.end(), addr) != seen_addresses.end()) continue;
      seen_addresses.push_back(addr);
    }
    const KfdNode* match = MatchNode(card, nodes, node_used);
    if (match && match->device_id && card.device_id && *match->device_id != *card.device_id)
      inv.findings.push_back(
          {.id = FindingName(FindingId::kDetectIdMismatch),
           .severity = Severity::kWarning,
           .subject = card.card,
           .what = fmt::format("{}: DRM says device 1002:{:04x}, its KFD node {} says 1002:{:04x}; the "
                               "DRM id is used",
                               card.card, *card.device_id, match->node, *match->device_id)});
    inv.gpus.push_back(FromParts(&card, match, system_ids.get()));
  }

  std::map<int, uint64_t> unique_by_node;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].unique_id) unique_by_node[nodes[i].node] = *nodes[i].unique_id;
    if (node_used[i]) continue;
    if (nodes[i].vendor_id && *nodes[i].vendor_id != kAmdVendor) continue;
    if (!nodes[i].domain_reported && nodes[i].address)
      inv.findings.push_back(
          {.id = FindingName(FindingId::kDetectKfdNoDomain),
           .severity = Severity::kInfo,
           .subject = nodes[i].address->ToString(),
           .what =
               fmt::format("KFD node {}: this kernel does not report the PCI domain; 0000 assumed", nodes[i].node)});
    inv.gpus.push_back(FromParts(nullptr, &nodes[i], system_ids.get()));
  }

  std::stable_sort(inv.gpus.begin(), inv.gpus.end(), [](const Gpu& a, const Gpu& b) { return a.id < b.id; });
  GroupPartitions(inv.gpus, unique_by_node);
  if (options.use_libdrm && root.IsLive()) EnrichWithLibdrm(inv.gpus);
  ApplyIommuGroups(root, inv.gpus, inv.system.iommu);
  ReadCpuLinkAtomics(root, inv.gpus);
  ReportIdentityGaps(inv.gpus, root.IsDirectory("sys/class/kfd/kfd/topology/nodes"), inv.findings);
  std::vector<std::string> amdgpu_ids;
  for (const Gpu& gpu : inv.gpus) amdgpu_ids.insert(amdgpu_ids.end(), {gpu.id, gpu.physical_id});
  inv.not_amdgpu = ReportNotAmdgpu(cards, pci, amdgpu_ids, inv.system, inv.findings);
  inv.pci_listed = pci.listed;
  return inv;
}

}  // namespace rocmtune::detect
