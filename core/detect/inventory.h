// Inventory: every AMD GPU (one entry per logical GPU; partitions share physical_id) and
// the system facts, read from a Root.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "detect/driver_binding.h"
#include "detect/finding.h"
#include "detect/system_facts.h"
#include "knowledge/family.h"
#include "sys/root.h"

namespace rocmtune::detect {

struct Gpu {
  std::string id;  // PCI address; for partitions KFD's (partition in the function bits)
  std::optional<std::string> card;
  std::optional<std::string> render_node;
  std::optional<std::string> pci_id;     // "1002:731f"
  std::optional<uint16_t> device_id;     // the same, as a number
  std::optional<std::string> revision;   // "0xc1"
  std::optional<std::string> subsystem;  // "1da2:e409"
  std::string marketing_name;
  std::optional<std::string> gfx_target;
  std::optional<uint32_t> gfx_target_version;
  std::optional<std::string> gc_ip;
  std::optional<knowledge::Family> family;
  std::optional<bool> apu;
  std::optional<uint64_t> vram_bytes;
  std::optional<uint64_t> visible_vram_bytes;  // not in the JSON contract; feeds vm_update_mode
  std::optional<int> kfd_node;
  // KFD's unique_id (0: none): ROCr's agent UUID "GPU-%016x" that ROCR_VISIBLE_DEVICES and
  // HIP_VISIBLE_DEVICES match (program/visible.h). Not in the JSON contract.
  std::optional<uint64_t> kfd_unique_id;
  std::string physical_id;
  std::string identified_by;              // "kfd", "ip_discovery", "pci_table", "none"
  std::optional<std::string> device_dir;  // root-relative sysfs device dir, when there is a DRM card
  // Not in the JSON contract. Discrete GPUs with a KFD node: whether KFD flags the GPU's link to
  // the CPU NO_ATOMICS (detect/kfd_io_links.h); nullopt: not read, or no link to the CPU found.
  std::optional<bool> cpu_link_no_atomics;
};

struct Inventory {
  SystemFacts system;
  std::vector<Gpu> gpus;
  std::vector<Finding> findings;
  // Not in the JSON contract. AMD GPUs amdgpu does not drive, each with its gpu.not-amdgpu
  // finding; whether sys/bus/pci/devices could be listed (if not, such GPUs are seen only by a
  // DRM card of another driver).
  std::vector<ForeignGpu> not_amdgpu;
  bool pci_listed = false;
};

struct DetectOptions {
  // Ask libdrm about live devices (only ever when the root is "/" and /dev/dri is there).
  bool use_libdrm = true;
};

Inventory Detect(const sys::Root& root, const DetectOptions& options = {});

}  // namespace rocmtune::detect
