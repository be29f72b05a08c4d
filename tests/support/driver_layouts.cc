#include "driver_layouts.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace rocmtune::testing {
namespace {

namespace fs = std::filesystem;

void WriteLayoutFile(const std::string& root_dir, std::string_view rel, std::string_view content) {
  fs::path path = fs::path(root_dir) / rel;
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void LinkLayout(const std::string& root_dir, std::string_view rel, std::string_view target) {
  fs::path path = fs::path(root_dir) / rel;
  fs::create_directories(path.parent_path());
  fs::remove(path);
  fs::create_symlink(target, path);
}

std::string LayoutEfiData(std::string_view data) { return std::string("\x06\0\0\0", 4) + std::string(data); }

}  // namespace

std::string AddPciFunction(const std::string& root_dir, std::string_view slot, std::string_view vendor,
                           std::string_view device, std::string_view pci_class, std::string_view driver) {
  const std::string dev = fmt::format("sys/devices/pci0000:00/{}", slot);
  LinkLayout(root_dir, fmt::format("sys/bus/pci/devices/{}", slot),
             fmt::format("../../../devices/pci0000:00/{}", slot));
  WriteLayoutFile(root_dir, dev + "/vendor", fmt::format("{}\n", vendor));
  WriteLayoutFile(root_dir, dev + "/device", fmt::format("{}\n", device));
  if (!pci_class.empty()) WriteLayoutFile(root_dir, dev + "/class", fmt::format("{}\n", pci_class));
  std::string uevent = fmt::format("PCI_SLOT_NAME={}\n", slot);
  if (!driver.empty()) {
    fs::create_directories(fs::path(root_dir) / fmt::format("sys/bus/pci/drivers/{}", driver));
    LinkLayout(root_dir, dev + "/driver", fmt::format("../../../bus/pci/drivers/{}", driver));
    uevent = fmt::format("DRIVER={}\n", driver) + uevent;
  }
  WriteLayoutFile(root_dir, dev + "/uevent", uevent);
  return dev;
}

void SetSecureBoot(const std::string& root_dir, bool on) {
  WriteLayoutFile(root_dir, "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c",
                  LayoutEfiData(std::string(1, on ? '\1' : '\0')));
}

void SetMokList(const std::string& root_dir, std::string_view data) {
  WriteLayoutFile(root_dir, "sys/firmware/efi/efivars/MokListRT-605dab50-e046-4300-abb6-3dd810dd8b23",
                  LayoutEfiData(data));
}

void InstallAmdgpuDkms(const std::string& root_dir, std::string_view version) {
  fs::create_directories(fs::path(root_dir) / fmt::format("var/lib/dkms/amdgpu/{}/source", version));
}

}  // namespace rocmtune::testing
