// AMD GPUs on the PCI bus (sys/bus/pci/devices), whichever driver has them: a GPU amdgpu does not
// drive has no DRM card of amdgpu's and no KFD node, and is seen only here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "detect/finding.h"
#include "detect/pci_address.h"
#include "sys/root.h"

namespace rocmtune::detect {

struct PciGpu {
  PciAddress address;
  std::string dir;  // root-relative: "sys/bus/pci/devices/0000:03:00.0"
  std::optional<uint16_t> device_id;
  uint32_t class_code = 0;            // 0x030000
  std::optional<std::string> driver;  // "amdgpu", "vfio-pci", "radeon"; nullopt: none bound
};

struct PciScan {
  bool listed = false;  // sys/bus/pci/devices could be listed (a tree may not have it)
  std::vector<PciGpu> gpus;
};

// Every function of vendor 0x1002 whose class is a display controller or a processing
// accelerator (not the GPU's HDMI/DP audio function, class 0x0403). The ids and the class come
// from `vendor`, `device` and `class`, else from `uevent` (PCI_ID, PCI_CLASS: captures often keep
// only that); the driver from the `driver` link, else uevent's DRIVER. A function whose class
// cannot be told is skipped; one whose `class` holds no class code is reported (detect.read-error).
PciScan ScanPciGpus(const sys::Root& root, std::vector<Finding>& findings);

// "0x030000" (the `class` file) or "30000" (uevent's PCI_CLASS): hex, at most 24 bits.
std::optional<uint32_t> ParsePciClass(std::string_view text);

// Base class 0x03 (display controller: VGA, XGA, 3D, other) or 0x12 (processing accelerator:
// Instinct parts); linux include/linux/pci_ids.h PCI_BASE_CLASS_DISPLAY, PCI_CLASS_ACCELERATOR_PROCESSING.
bool IsGpuClass(uint32_t class_code);

}  // namespace rocmtune::detect
