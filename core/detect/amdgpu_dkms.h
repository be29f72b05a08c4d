// amdgpu-dkms (AMD's out-of-tree amdgpu, built by DKMS for each kernel) and what Secure Boot makes
// of it: under Secure Boot the kernel loads only modules signed with a key it trusts, and DKMS
// signs with its own key (a MOK), which works only once enrolled through shim's MokManager.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sys/root.h"

namespace rocmtune::detect {

struct OsRelease;

struct AmdgpuDkms {
  std::string evidence;  // "/var/lib/dkms/amdgpu/6.10.5-2084815.24.04", or the dpkg status line
  // The certificate DKMS signs modules with (root-relative), when it exists (dell/dkms
  // prepare_mok: framework.conf's mok_certificate, else Ubuntu's /var/lib/shim-signed/mok/MOK.der,
  // else /var/lib/dkms/mok.pub).
  std::optional<std::string> certificate;
  std::string certificate_expected;  // where DKMS would look for it: what the fix names
  // Whether that certificate is in MokListRT; nullopt: unknown.
  std::optional<bool> enrolled;
  bool import_pending = false;  // a key waits for MokManager (MokNew)
};

// nullopt when amdgpu-dkms is not installed: no /var/lib/dkms/amdgpu/<version> and no installed
// amdgpu-dkms in dpkg's status.
std::optional<AmdgpuDkms> DetectAmdgpuDkms(const sys::Root& root, const OsRelease& os);

// Why amdgpu is not loaded, when the files say: Secure Boot on and amdgpu-dkms's module not
// signed with an enrolled key, so the kernel refuses it. nullopt when that is not the case (no
// Secure Boot, no amdgpu-dkms, its key enrolled).
struct DriverCause {
  std::string why;  // a sentence: what keeps amdgpu out
  std::string fix;  // what to do
  std::string source;
};
std::optional<DriverCause> DkmsSignatureCause(std::optional<bool> secure_boot, const std::optional<AmdgpuDkms>& dkms);

}  // namespace rocmtune::detect
