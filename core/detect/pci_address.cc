#include "detect/pci_address.h"

#include <fmt/format.h>

#include "util/text.h"

namespace rocmtune::detect {

std::string PciAddress::ToString() const {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
}

std::optional<PciAddress> ParsePciAddress(std::string_view s) {
  // dddd:bb:dd.f
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return std::nullopt;
  auto domain = text::ParseU64(s.substr(0, 4), 16);
  auto bus = text::ParseU64(s.substr(5, 2), 16);
  auto dev = text::ParseU64(s.substr(8, 2), 16);
  auto fn = text::ParseU64(s.substr(11, 1), 16);
  if (!domain || !bus || !dev || !fn || *dev > 0x1f || *fn > 7) return std::nullopt;
  return PciAddress{static_cast<uint32_t>(*domain), static_cast<uint8_t>(*bus), static_cast<uint8_t>(*dev),
                    static_cast<uint8_t>(*fn)};
}

PciAddress FromKfdLocation(uint32_t domain, uint32_t location_id) {
  return PciAddress{domain, static_cast<uint8_t>((location_id >> 8) & 0xff),
                    static_cast<uint8_t>((location_id >> 3) & 0x1f), static_cast<uint8_t>(location_id & 0x7)};
}

}  // namespace rocmtune::detect
