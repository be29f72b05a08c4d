// AMD GPUs amdgpu does not drive: bound to no driver, to radeon, or to a passthrough driver
// (vfio-pci). Each gets one gpu.not-amdgpu finding that says why, as far as the files tell, and
// what to do; none has a DRM card of amdgpu's or a KFD node, so ROCm programs cannot use it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "detect/drm_cards.h"
#include "detect/finding.h"
#include "detect/pci_gpus.h"
#include "detect/system_facts.h"

namespace rocmtune::detect {

struct ForeignGpu {
  std::string id;                     // PCI address (the card's name when it has none)
  std::optional<std::string> driver;  // nullopt: no driver
  Severity severity = Severity::kInfo;
};

// One finding per device: from `pci` (every AMD GPU on the bus) and from `cards` another driver
// made (a tree without sys/bus/pci), leaving out every device `amdgpu_ids` (the inventory's GPUs)
// names. Returns the devices reported.
std::vector<ForeignGpu> ReportNotAmdgpu(const std::vector<DrmCard>& cards, const PciScan& pci,
                                        const std::vector<std::string>& amdgpu_ids, const SystemFacts& facts,
                                        std::vector<Finding>& findings);

}  // namespace rocmtune::detect
