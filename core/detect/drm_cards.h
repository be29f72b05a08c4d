// DRM cards: /sys/class/drm/cardN whose device is a PCI display device.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "detect/finding.h"
#include "detect/pci_address.h"
#include "sys/root.h"

namespace rocmtune::detect {

struct DrmCard {
  std::string card;        // "card1"
  std::string device_dir;  // root-relative: "sys/class/drm/card1/device"
  std::optional<std::string> driver;
  std::optional<PciAddress> address;
  std::optional<uint16_t> vendor_id;
  std::optional<uint16_t> device_id;
  std::optional<std::string> subsystem;  // "17aa:50da"
  std::optional<uint8_t> revision;
  std::optional<std::string> render_node;  // "renderD128"
  std::optional<uint64_t> vram_total;
  std::optional<uint64_t> visible_vram_total;  // CPU-visible part (the BAR); equal to vram_total with large BAR
  std::optional<std::string> gc_ip;            // "11.0.1" from ip_discovery
  std::optional<std::string> product_name;
};

// Every cardN (connectors like card1-DP-1 are not cards). Read problems become findings;
// a card whose uevent cannot be read is still listed, with what could be read.
std::vector<DrmCard> ScanDrmCards(const sys::Root& root, std::vector<Finding>& findings);

}  // namespace rocmtune::detect
