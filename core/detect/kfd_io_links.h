// Whether each discrete GPU's KFD link to the CPU lacks PCIe AtomicOps: the io_link flags
// NO_ATOMICS_32_BIT (bit 2) and NO_ATOMICS_64_BIT (bit 3) of kfd_crat.h, which KFD sets from the
// GPU's PCIe DEVCAP2 (kfd_topology.c kfd_set_iolink_no_atomics); readable by any user, unlike the
// config space. Read at detection, with the rest of the topology: rocmtuned keeps its inventory
// until a GPU comes or goes, so a Describe reads no io_links (63 files per Describe of a
// 64-partition MI300X before), and doctor's check reads the answer (diagnose/machine_checks.cc).
#pragma once

#include <vector>

#include "detect/inventory.h"
#include "sys/root.h"

namespace rocmtune::detect {

// Sets Gpu::cpu_link_no_atomics of every GPU with a KFD node that is not an APU.
//
// The links are read in the kernel's order up to the first one that leads to a node that is not
// a GPU (the CPU): that is the link that decides, and a GPU's PCIe links carry the same flags
// (XGMI links never have them). KFD's virtual CRAT lists the CPU link first (so do the captures),
// so a GPU costs one read instead of one per link. The directory is not listed either:
// kfd_topology.c kfd_build_sysfs_node_entry names a node's links "0", "1", ... in the order of
// its io_link_props list, so link n exists only when 0..n-1 do, and the first missing one ends
// the walk. A link directory without a readable properties file (a damaged capture) is skipped.
void ReadCpuLinkAtomics(const sys::Root& root, std::vector<Gpu>& gpus);

}  // namespace rocmtune::detect
