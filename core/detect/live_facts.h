// Live facts: what amd-smi or rocm-smi-lib says about each GPU of the inventory (firmware versions, ECC
// counts, the PCIe link and replays, throttling), matched by PCI address. Only for the live root;
// every value is known or says why not.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "detect/inventory.h"
#include "detect/pci_address.h"
#include "sys/rocm_smi.h"

namespace rocmtune::detect {

struct LiveFacts {
  std::string gpu_id;
  std::string source;           // "amd-smi" or "rocm-smi-lib"; empty when no library loaded
  std::string library_version;  // that library's, empty when unknown
  std::string unavailable;      // why nothing at all is known about this GPU; empty otherwise
  sys::SmiDevice smi;           // every value unknown (with the reason) when none was read
};

// rocm_smi.h's BDF id: domain 63:32, bus 15:8, device 7:3, function 2:0.
PciAddress FromBdfId(uint64_t bdfid);

// A device whose every value is unknown for `reason`.
sys::SmiDevice UnknownDevice(const std::string& reason);

// One entry per GPU, in the inventory's order. A GPU rocm-smi-lib does not list, or every GPU
// when the probe failed, gets UnknownDevice with the reason.
std::vector<LiveFacts> MatchLiveFacts(const std::vector<Gpu>& gpus, const sys::SmiProbe& probe);

// ProbeRocmSmi and MatchLiveFacts; no probe at all without GPUs.
std::vector<LiveFacts> ReadLiveFacts(const std::vector<Gpu>& gpus, const sys::SmiOptions& options = {});

// The PCIe link from the DPM levels: the level in use and the fastest, widest one.
struct PcieLink {
  uint64_t rate = 0;  // T/s
  uint32_t lanes = 0;
  uint64_t max_rate = 0;
  uint32_t max_lanes = 0;
  bool BelowMax() const { return rate < max_rate || lanes < max_lanes; }
};
std::optional<PcieLink> LinkOf(const sys::SmiFact<sys::SmiPcie>& pcie);

}  // namespace rocmtune::detect
