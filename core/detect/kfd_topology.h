// KFD topology: /sys/class/kfd/kfd/topology/nodes/N (kfd_topology.c). Every key is
// optional: old kernels lack gfx_target_version, domain and more.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "detect/finding.h"
#include "detect/pci_address.h"
#include "sys/root.h"

namespace rocmtune::detect {

struct KfdNode {
  int node = -1;
  std::optional<uint32_t> gfx_target_version;  // 0 on CPU nodes
  std::optional<uint16_t> vendor_id;
  std::optional<uint16_t> device_id;
  std::optional<PciAddress> address;  // from domain + location_id
  bool domain_reported = false;       // old kernels print no domain (assumed 0)
  std::optional<uint32_t> drm_render_minor;
  std::optional<uint64_t> unique_id;  // shared by the partitions of one GPU
  std::optional<uint32_t> num_xcc;
  std::optional<uint64_t> local_memory_bytes;  // sum of mem_banks heaps 1 (FB public) and 2 (FB private)
};

// GPU nodes only (CPU nodes have no SIMDs and gpu_id 0), ordered by node number.
std::vector<KfdNode> ScanKfdGpuNodes(const sys::Root& root, std::vector<Finding>& findings);

}  // namespace rocmtune::detect
