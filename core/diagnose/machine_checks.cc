// The machine checks of `doctor` that neither status nor the known-issue base makes: PCIe
// atomics as KFD saw them, the IOMMU mode, large BAR, access to /dev/kfd and the render nodes,
// and a pending reboot.
#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "detect/finding_ids.h"
#include "diagnose/checks.h"
#include "util/text.h"

namespace rocmtune::diagnose {

namespace {

using detect::Severity;
using text::SplitLines;

Finding Make(std::string id, Severity severity, std::string subject, std::string what, std::string why, std::string fix,
             std::string source) {
  return MakeFinding(std::move(id), severity, std::move(subject), std::move(what), std::move(why), std::move(fix),
                     {std::move(source)});
}

bool IsDgpu(const detect::Gpu& g) { return g.apu && !*g.apu; }

// The GPU's KFD link to the CPU without 32/64-bit AtomicOps, as detection read its io_link flags
// (detect/kfd_io_links.h; rocmtuned reads them once per inventory, not per Describe).
void CheckAtomics(const detect::Gpu& g, std::vector<Finding>& out) {
  if (!IsDgpu(g) || !g.cpu_link_no_atomics.value_or(false)) return;
  out.push_back(Make(FindingName(FindingId::kPcieNoAtomics), Severity::kInfo, g.id,
                     "The GPU's PCIe link to the CPU has no 32/64-bit AtomicOps",
                     "KFD marks the link NO_ATOMICS; ROCm runs without them only where the GPU's firmware "
                     "copes (Navi 1x/2x with new MEC firmware, GFX9, GFX11 and newer)",
                     "If ROCm programs fail, put the GPU in a slot wired to the CPU",
                     "linux drivers/gpu/drm/amd/amdkfd/kfd_crat.h (CRAT_IOLINK_FLAGS_NO_ATOMICS_*); ROCm docs "
                     "conceptual/pcie-atomics.rst"));
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
  for (const detect::Gpu& g : inventory.gpus) {
    CheckAtomics(g, out);
    CheckBar(g, out);
  }
  CheckIommu(inventory, out);
  if (caller) CheckAccess(root, inventory, out);
  CheckReboot(root, out);
  return out;
}

}  // namespace rocmtune::diagnose
