// What decides whether amdgpu drives a GPU, written into a test root (a WorldCopy's root or a
// TestTree's path) as the kernel and the packages lay it out: PCI functions on the bus with their
// `driver` link, the SecureBoot and MokListRT EFI variables (efivarfs: 4 bytes of attributes, then
// the data), and amdgpu-dkms's DKMS tree with DKMS's signing certificate.
#pragma once

#include <string>
#include <string_view>

namespace rocmtune::testing {

// sys/bus/pci/devices/<slot> -> sys/devices/pci0000:00/<slot> with vendor, device, class (none
// when `pci_class` is empty) and uevent; `driver` links to sys/bus/pci/drivers/<driver> (no link
// when empty). Returns the device dir, root-relative.
std::string AddPciFunction(const std::string& root_dir, std::string_view slot, std::string_view vendor,
                           std::string_view device, std::string_view pci_class, std::string_view driver);

// The SecureBoot variable (EFI global GUID), 1 or 0.
void SetSecureBoot(const std::string& root_dir, bool on);

// efivars MokListRT (shim's GUID) holding `data`.
void SetMokList(const std::string& root_dir, std::string_view data);

// /var/lib/dkms/amdgpu/<version>/source, as `dkms add` of amdgpu-dkms leaves it.
void InstallAmdgpuDkms(const std::string& root_dir, std::string_view version = "6.10.5-2084815.24.04");

// Stands for DKMS's DER certificate /var/lib/dkms/mok.pub: only its bytes matter.
inline constexpr std::string_view kDkmsCertificate = "0\x82\x03\x1b DKMS module signing key";

}  // namespace rocmtune::testing
