#include "detect/driver_binding.h"

#include <algorithm>

#include <fmt/format.h>

#include "detect/finding_ids.h"
#include "util/text.h"

namespace rocmtune::detect {
namespace {

constexpr std::string_view kAmdgpuSource =
    "linux drivers/gpu/drm/amd/amdgpu/amdgpu_drv.c (amdgpu_init, amdgpu_pci_probe)";

struct BindingDevice {
  std::string id;
  std::optional<uint16_t> device_id;
  std::optional<uint32_t> class_code;
  std::optional<std::string> driver;
};

bool BindingCmdlineHas(const SystemFacts& facts, std::string_view token) {
  if (!facts.cmdline) return false;
  auto tokens = text::Tokens(*facts.cmdline);
  return std::find(tokens.begin(), tokens.end(), token) != tokens.end();
}

Finding UnboundFinding(const BindingDevice& d, const std::string& name, const SystemFacts& facts) {
  Finding f{.id = FindingName(FindingId::kGpuNotAmdgpu), .severity = Severity::kWarning, .subject = d.id};
  if (!facts.amdgpu.loaded)
    if (std::optional<DriverCause> cause = DkmsSignatureCause(facts.secure_boot, facts.amdgpu_dkms)) {
      f.severity = Severity::kError;
      f.what = fmt::format("{} has no driver: {}", name, cause->why);
      f.fix.text = cause->fix;
      f.sources = SourcesOf(cause->source);
      return f;
    }
  f.sources = {std::string(kAmdgpuSource)};
  // amdgpu_pci_probe refuses a display-class GPU when the command line has nomodeset
  // (drm_firmware_drivers_only()) and amdgpu.modeset is not 1.
  const bool display = !d.class_code || (*d.class_code >> 16) == 0x03;
  if (display && BindingCmdlineHas(facts, "nomodeset") && !BindingCmdlineHas(facts, "amdgpu.modeset=1")) {
    f.what = fmt::format(
        "{} has no driver: the kernel command line has nomodeset, which keeps amdgpu off display "
        "GPUs; ROCm programs cannot use it",
        name);
    f.fix.text = "Remove nomodeset from the kernel command line (or add amdgpu.modeset=1) and reboot";
  } else if (!facts.amdgpu.loaded) {
    f.what = fmt::format("{} has no driver and the amdgpu module is not loaded: ROCm programs cannot use it", name);
    f.fix.text =
        "sudo modprobe amdgpu, then read why it fails in dmesg: a blacklist in /etc/modprobe.d or "
        "modprobe.blacklist=amdgpu, missing firmware (linux-firmware), a module built for another kernel";
  } else {
    f.what = fmt::format("{} has no driver: amdgpu is loaded but did not take it; ROCm programs cannot use it", name);
    f.fix.text = "dmesg | grep -i amdgpu says why: missing firmware, a failed init, a device this amdgpu does not know";
  }
  return f;
}

Finding BoundFinding(const BindingDevice& d, const std::string& name, const std::string& driver) {
  if (driver == "radeon")
    return {.id = FindingName(FindingId::kGpuNotAmdgpu),
            .severity = Severity::kWarning,
            .subject = d.id,
            .what = fmt::format("{} is driven by radeon, not amdgpu: rocmtune does not manage it and ROCm programs "
                                "cannot use it",
                                name),
            .fix = {.text = "amdgpu takes a Southern Islands (HD 7000) or Sea Islands (R7/R9 200) GPU from radeon in "
                            "a kernel built with CONFIG_DRM_AMDGPU_SI / CONFIG_DRM_AMDGPU_CIK: amdgpu.si_support=1 "
                            "radeon.si_support=0 (SI) or amdgpu.cik_support=1 radeon.cik_support=0 (CIK) on the "
                            "kernel command line; older GPUs have no amdgpu support"},
            .sources = {"linux drivers/gpu/drm/amd/amdgpu/amdgpu_drv.c (si_support, cik_support); "
                        "drivers/gpu/drm/radeon/radeon_drv.c (si_support, cik_support)"}};
  // vfio-pci and the like hold a GPU for a virtual machine on purpose.
  const bool passthrough = driver == "vfio-pci" || driver == "pci-stub" || driver == "xen-pciback";
  return {.id = FindingName(FindingId::kGpuNotAmdgpu),
          .severity = Severity::kInfo,
          .subject = d.id,
          .what = fmt::format("{} is bound to {}{}; rocmtune manages amdgpu devices only", name, driver,
                              passthrough ? " (held for a virtual machine)" : "")};
}

}  // namespace

std::vector<ForeignGpu> ReportNotAmdgpu(const std::vector<DrmCard>& cards, const PciScan& pci,
                                        const std::vector<std::string>& amdgpu_ids, const SystemFacts& facts,
                                        std::vector<Finding>& findings) {
  std::vector<BindingDevice> devices;
  auto known = [&](const std::string& id) {
    return std::find(amdgpu_ids.begin(), amdgpu_ids.end(), id) != amdgpu_ids.end() ||
           std::any_of(devices.begin(), devices.end(), [&](const BindingDevice& d) { return d.id == id; });
  };
  for (const PciGpu& g : pci.gpus) {
    const std::string id = g.address.ToString();
    if (g.driver == "amdgpu" || known(id)) continue;
    devices.push_back({id, g.device_id, g.class_code, g.driver});
  }
  for (const DrmCard& card : cards) {
    if (card.vendor_id != 0x1002 || card.driver == "amdgpu") continue;  // another vendor's: not ours to mention
    const std::string id = card.address ? card.address->ToString() : card.card;
    if (known(id)) continue;
    devices.push_back({id, card.device_id, std::nullopt, card.driver});
  }
  std::vector<ForeignGpu> out;
  for (const BindingDevice& d : devices) {
    const std::string name = fmt::format("{} (1002:{:04x})", d.id, d.device_id.value_or(0));
    Finding f = d.driver ? BoundFinding(d, name, *d.driver) : UnboundFinding(d, name, facts);
    // What one GPU cannot do (a warning or an error) concerns that GPU: check-compute and doctor
    // count it for it, never for the GPUs amdgpu drives.
    if (f.severity != Severity::kInfo) f.gpu = d.id;
    out.push_back({d.id, d.driver, f.severity});
    findings.push_back(std::move(f));
  }
  return out;
}

}  // namespace rocmtune::detect
