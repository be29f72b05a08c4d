// PCI addresses: "0000:03:00.0" from sysfs names or from KFD's domain + location_id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rocmtune::detect {

struct PciAddress {
  uint32_t domain = 0;
  uint8_t bus = 0;
  uint8_t device = 0;
  uint8_t function = 0;

  std::string ToString() const;
  bool operator==(const PciAddress&) const = default;
};

// "0000:03:00.0" (as in PCI_SLOT_NAME); nullopt unless exactly that shape.
std::optional<PciAddress> ParsePciAddress(std::string_view s);

// KFD location_id = bus << 8 | devfn (kfd_topology.c, pci_dev_id()).
PciAddress FromKfdLocation(uint32_t domain, uint32_t location_id);

}  // namespace rocmtune::detect
