// System facts that matter for ROCm: kernel, command line, distribution, ROCm version,
// loaded amdgpu/ttm parameters, boot setup, IOMMU state.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "detect/amdgpu_dkms.h"
#include "detect/boot_setup.h"
#include "detect/finding.h"
#include "sys/root.h"

namespace rocmtune::detect {

struct ModuleState {
  bool loaded = false;
  // name -> value as the running kernel shows it; nullopt when it could not be read
  // (0600 parameters for a non-root reader).
  std::map<std::string, std::optional<std::string>> parameters;
};

struct IommuState {
  std::optional<bool> enabled;      // an IOMMU unit registered in /sys/class/iommu
  std::optional<std::string> mode;  // "passthrough", "translated", "off"
  std::string evidence;             // what decided `mode`
};

struct OsRelease {
  std::optional<std::string> id;
  std::optional<std::string> version_id;
  std::optional<std::string> pretty_name;
};

struct SystemFacts {
  std::optional<std::string> kernel;
  std::optional<std::string> cmdline;
  OsRelease os;
  std::optional<std::string> rocm_version;
  BootSetup boot;
  ModuleState amdgpu;
  ModuleState ttm;
  IommuState iommu;
  // Not in the JSON contract: what tells why amdgpu may not load (amdgpu_dkms.h). secure_boot:
  // the SecureBoot EFI variable, nullopt when it cannot be read; amdgpu_dkms is looked for only
  // with Secure Boot on and amdgpu not loaded.
  std::optional<bool> secure_boot;
  std::optional<AmdgpuDkms> amdgpu_dkms;
};

SystemFacts DetectSystemFacts(const sys::Root& root, std::vector<Finding>& findings);

// os-release(5): KEY=value with optional shell-style quotes.
OsRelease ParseOsRelease(std::string_view content);

// The IOMMU group type of a PCI device dir ("identity", "DMA", "DMA-FQ"), if it has one.
std::optional<std::string> IommuGroupType(const sys::Root& root, std::string_view device_dir);

}  // namespace rocmtune::detect
