// The machine checks of `doctor` that neither status nor the known-issue base makes: PCIe
// atomics as KFD saw them, the IOMMU mode, large BAR, access to /dev/kfd and the render nodes,
// and a pending reboot.
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "detect/finding_ids.h"
#include "diagnose/checks.h"
#include "util/text.h"

namespace rocmtune::diagnose {

namespace {

using detect::Severity;
using text::ParseKeySpaceValue;
using text::ParseU64;
using text::SplitLines;

Finding Make(std::string id, Severity severity, std::string subject, std::string what, std::string why, std::string fix,
             std::string source) {
  return MakeFinding(std::move(id), severity, std::move(subject), std::move(what), std::move(why), std::move(fix),
                     {std::move(source)});
}

bool IsDgpu(const detect::Gpu& g) { return g.apu && !*g.apu; }

// KFD io_link flags (kfd_crat.h): bit 2 NO_ATOMICS_32_BIT, bit 3 NO_ATOMICS_64_BIT, from the
// link's PCIe DEVCAP2; readable by any user, unlike the config space.
// The links are read in the kernel's order up to the first one that leads to a node that is not
// a GPU (the CPU): that is the link the finding is about, and a GPU's PCIe links carry the same
// flags (kfd_topology.c kfd_set_iolink_no_atomics sets them from the GPU's pci_atomic_requested;
// XGMI links never have them). KFD's virtual CRAT lists the CPU link first (so do the captures),
// so a GPU costs one read instead of one per link. The directory is not listed either:
// kfd_topology.c kfd_build_sysfs_node_entry names a node's links "0", "1", ... in the order of
// its io_link_props list, so link n exists only when 0..n-1 do, and the first missing one ends
// the walk (listing io_links cost 63 entries per partition, 4,000 per Describe of a 64-partition
// MI300X). A link directory without a readable properties file (a damaged capture) is skipped.
void CheckAtomics(const sys::Root& root, const detect::Gpu& g, const std::set<int>& gpu_nodes,
                  std::vector<Finding>& out) {
  if (!g.kfd_node || !IsDgpu(g)) return;
  const std::string links = fmt::format("sys/class/kfd/kfd/topology/nodes/{}/io_links", *g.kfd_node);
  // A node has at most one link to each other node: more than this many is not KFD's tree.
  constexpr uint64_t kMaxLinks = 4096;
  for (uint64_t n = 0; n < kMaxLinks; ++n) {
    auto props = root.ReadFile(fmt::format("{}/{}/properties", links, n));
    if (!props) {
      if (!root.Exists(fmt::format("{}/{}", links, n))) return;
      continue;
    }
    auto kv = ParseKeySpaceValue(*props);
    auto it = kv.find("flags");
    auto flags = it == kv.end() ? std::nullopt : ParseU64(it->second);
    if (flags && (*flags & 0xC)) {
      out.push_back(Make(FindingName(FindingId::kPcieNoAtomics), Severity::kInfo, g.id,
                         "The GPU's PCIe link to the CPU has no 32/64-bit AtomicOps",
                         "KFD marks the link NO_ATOMICS; ROCm runs without them only where the GPU's firmware "
                         "copes (Navi 1x/2x with new MEC firmware, GFX9, GFX11 and newer)",
                         "If ROCm programs fail, put the GPU in a slot wired to the CPU",
                         "linux drivers/gpu/drm/amd/amdkfd/kfd_crat.h (CRAT_IOLINK_FLAGS_NO_ATOMICS_*); ROCm docs "
                         "conceptual/pcie-atomics.rst"));
      return;
    }
    auto to_it = kv.find("node_to");
    auto to = to_it == kv.end() ? std::nullopt : ParseU64(to_it->second);
    if (to && *to <= static_cast<uint64_t>(std::numeric_limits<int>::max()) &&
        !gpu_nodes.contains(static_cast<int>(*to)))
      return;  // the link to the CPU, without the flags
  }
}

void CheckBar(const detect::Gpu& g, std::vector<Finding>& out) {
  if (!IsDgpu(g) || !g.vram_bytes || !g.visible_vram_bytes || *g.visible_vram_bytes >= *g.vram_bytes) return;
  out.push_back(Make(FindingName(FindingId::kPcieSmallBar), Severity::kInfo, g.id,
                     fmt::format("The CPU sees {} MiB of the GPU's {} MiB VRAM (no large BAR)",
                                 *g.visible_vram_bytes >> 20, *g.vram_bytes >> 20),
                     "Peer-to-peer transfers between GPUs need a large BAR; single-GPU compute works without it",
                     "Enable 'Above 4G decoding' and 'Resizable BAR' in the firmware setup if you need P2P",
                     "ROCm docs how-to/Bar-Memory.rst"));
}

void CheckIommu(const detect::Inventory& inv, std::vector<Finding>& out) {
  static const std::vector<std::string> kInstinct = {"gfx908", "gfx90a", "gfx942", "gfx950"};
  if (inv.system.iommu.mode != "translated") return;
  for (const detect::Gpu& g : inv.gpus)
    if (g.gfx_target && std::count(kInstinct.begin(), kInstinct.end(), *g.gfx_target)) {
      Finding f =
          Make(FindingName(FindingId::kIommuTranslated), Severity::kWarning, g.id,
               "The IOMMU translates DMA for an Instinct GPU",
               fmt::format("AMD recommends pass-through (iommu=pt) for Instinct GPUs ({})", inv.system.iommu.evidence),
               "Apply the instinct profile (sets cmdline.iommu=pt) and reboot",
               "ROCm docs conceptual/iommu.rst; how-to/system-optimization/mi300x.rst");
      f.fix.profile = "instinct";
      out.push_back(std::move(f));
      return;
    }
}

// The user name `rocmtunectl` runs as, for the world's /etc/group (a world has no live ids).
std::string UserName(const sys::Root& root) {
  auto passwd = root.ReadFile("etc/passwd");
  std::string uid = std::to_string(getuid());
  if (passwd)
    for (std::string_view line : SplitLines(*passwd)) {
      auto fields = text::SplitFields(line, ':');
      if (fields.size() > 2 && fields[2] == uid) return std::string(fields[0]);
    }
  const char* user = getenv("USER");
  return user ? user : "";
}

bool InGroup(std::string_view group_file, std::string_view group, std::string_view user) {
  for (std::string_view line : SplitLines(group_file)) {
    auto fields = text::SplitFields(line, ':');
    if (fields.size() < 4 || fields[0] != group) continue;
    for (std::string_view member : text::SplitFields(fields[3], ','))
      if (member == user) return true;
  }
  return false;
}

void CheckAccess(const sys::Root& root, const detect::Inventory& inv, std::vector<Finding>& out) {
  if (inv.gpus.empty() || getuid() == 0) return;
  const std::string why =
      "ROCm programs open /dev/kfd and /dev/dri/renderD*; both belong to the render group "
      "(video on older distributions)";
  const std::string source = "ROCm install docs, 'Configuring permissions for GPU access'; ROCT-Thunk-Interface";
  if (root.IsLive()) {
    if (access("/dev/kfd", R_OK | W_OK) == 0) return;
    out.push_back(Make(FindingName(FindingId::kAccessKfd), Severity::kError, "/dev/kfd",
                       "This user cannot open /dev/kfd read-write", why,
                       "sudo usermod -aG render,video $USER, then log in again", source));
    out.back().effect = Effect::kNoGpu;
    return;
  }
  auto groups = root.ReadFile("etc/group");
  std::string user = UserName(root);
  if (!root.Exists("dev/kfd") || !groups || user.empty()) {
    out.push_back(Make(FindingName(FindingId::kAccessUnknown), Severity::kInfo, "/dev/kfd",
                       "Whether this user may open /dev/kfd cannot be told from this tree",
                       "The tree has no dev/kfd, etc/group or entry for the user", "Run doctor on the machine itself",
                       source));
    return;
  }
  if (InGroup(*groups, "render", user) || InGroup(*groups, "video", user)) return;
  out.push_back(Make(FindingName(FindingId::kAccessKfd), Severity::kError, user,
                     fmt::format("{} is in neither the render nor the video group", user), why,
                     fmt::format("sudo usermod -aG render,video {}, then log in again", user), source));
  out.back().effect = Effect::kNoGpu;  // for every GPU: this user's programs open none
}

void CheckReboot(const sys::Root& root, std::vector<Finding>& out) {
  for (std::string_view flag : {"run/reboot-required", "var/run/reboot-required"})
    if (root.Exists(flag)) {
      out.push_back(Make(FindingName(FindingId::kRebootPending), Severity::kWarning, std::string(flag),
                         "The system asks for a reboot",
                         "A package update (kernel, firmware, initramfs) takes effect only after it", "Reboot",
                         "Debian/Ubuntu update-notifier: /run/reboot-required"));
      return;
    }
}

}  // namespace

std::vector<Finding> MachineChecks(const sys::Root& root, const detect::Inventory& inventory, bool caller) {
  std::vector<Finding> out;
  std::set<int> gpu_nodes;
  for (const detect::Gpu& g : inventory.gpus)
    if (g.kfd_node) gpu_nodes.insert(*g.kfd_node);
  for (const detect::Gpu& g : inventory.gpus) {
    CheckAtomics(root, g, gpu_nodes, out);
    CheckBar(g, out);
  }
  CheckIommu(inventory, out);
  if (caller) CheckAccess(root, inventory, out);
  CheckReboot(root, out);
  return out;
}

}  // namespace rocmtune::diagnose
