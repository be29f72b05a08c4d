#include "detect/amdgpu_dkms.h"

#include <fmt/format.h>

#include "detect/efi_vars.h"
#include "detect/system_facts.h"
#include "sys/dpkg_status.h"
#include "util/text.h"

namespace rocmtune::detect {
namespace {

// DKMS's tree of one module: /var/lib/dkms/<module>/<version>/ (dkms(8)); amdgpu-dkms adds its
// module as "amdgpu" (`dkms status`: amdgpu/6.10.5-2084815.24.04, <kernel>, x86_64: installed).
constexpr std::string_view kDkmsTree = "var/lib/dkms/amdgpu";
constexpr size_t kMaxCertificate = 64 << 10;
constexpr std::string_view kDkmsCertificate = "var/lib/dkms/mok.pub";
constexpr std::string_view kUbuntuCertificate = "var/lib/shim-signed/mok/MOK.der";

// `mok_certificate=PATH` of /etc/dkms/framework.conf and framework.conf.d/*.conf, which dkms
// sources in that order (read_framework_conf): the last one wins.
std::optional<std::string> ConfiguredCertificate(const sys::Root& root) {
  std::vector<std::string> files = {"etc/dkms/framework.conf"};
  if (auto names = root.ListDir("etc/dkms/framework.conf.d"))
    for (const std::string& n : *names)
      if (n.ends_with(".conf")) files.push_back("etc/dkms/framework.conf.d/" + n);
  std::optional<std::string> path;
  for (const std::string& file : files) {
    auto content = root.ReadFile(file, 65536);
    if (!content) continue;
    for (std::string_view line : text::SplitLines(*content)) {
      line = text::Trim(line);
      if (!line.starts_with("mok_certificate=")) continue;
      std::string_view value = text::Trim(line.substr(16));
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
        value = value.substr(1, value.size() - 2);
      if (value.starts_with('/') && value.size() > 1) path = std::string(value.substr(1));
    }
  }
  return path;
}

}  // namespace

std::optional<AmdgpuDkms> DetectAmdgpuDkms(const sys::Root& root, const OsRelease& os) {
  AmdgpuDkms dkms;
  if (auto versions = root.ListDir(kDkmsTree))
    for (const std::string& v : *versions)
      if (root.IsDirectory(fmt::format("{}/{}", kDkmsTree, v))) {
        dkms.evidence = root.Display(fmt::format("{}/{}", kDkmsTree, v));
        break;
      }
  if (dkms.evidence.empty())
    // RPM's database is not read: amdgpu-dkms's RPM registers the same /var/lib/dkms tree.
    if (auto status = root.ReadFile(sys::kDpkgStatus, sys::kMaxDpkgStatusBytes))
      if (auto package = sys::FirstInstalled(*status, [](std::string_view name) { return name == "amdgpu-dkms"; }))
        dkms.evidence = fmt::format("{}: {} {}", root.Display(sys::kDpkgStatus), package->name, package->version);
  if (dkms.evidence.empty()) return std::nullopt;

  std::vector<std::string> candidates;
  if (auto configured = ConfiguredCertificate(root)) candidates.push_back(*configured);
  else {
    if (os.id == "ubuntu") candidates.emplace_back(kUbuntuCertificate);
    candidates.emplace_back(kDkmsCertificate);
  }
  dkms.certificate_expected = candidates.front();
  for (const std::string& c : candidates)
    if (root.TypeOf(c) != sys::EntryType::kMissing) {
      dkms.certificate = c;
      break;
    }
  if (dkms.certificate) {
    if (auto der = root.ReadFile(*dkms.certificate, kMaxCertificate)) dkms.enrolled = MokListHas(root, *der);
    dkms.import_pending = MokImportPending(root);
  }
  return dkms;
}

std::optional<DriverCause> DkmsSignatureCause(std::optional<bool> secure_boot, const std::optional<AmdgpuDkms>& dkms) {
  if (secure_boot != true || !dkms || dkms->enrolled == true) return std::nullopt;
  const std::string source =
      "linux kernel/module/signing.c (module_sig_check: 'Loading of unsigned module is rejected', EKEYREJECTED "
      "'Key was rejected by service'); dell/dkms dkms.in prepare_mok (/var/lib/dkms/mok.pub, Ubuntu's "
      "/var/lib/shim-signed/mok/MOK.der); mokutil(1) --import";
  const std::string remove =
      "or remove amdgpu-dkms (apt remove amdgpu-dkms / dnf remove amdgpu-dkms) to use the kernel's own, signed "
      "amdgpu";
  const std::string key = "/" + dkms->certificate.value_or(dkms->certificate_expected);
  DriverCause cause;
  cause.source = source;
  if (!dkms->certificate) {
    cause.why = fmt::format(
        "Secure Boot is on and amdgpu-dkms is installed ({}), but DKMS has no signing key ({} is missing): its "
        "amdgpu module is unsigned and the kernel refuses to load it ('Loading of unsigned module is rejected')",
        dkms->evidence, key);
    cause.fix = fmt::format(
        "Rebuild it so DKMS makes its key and signs the module (sudo dkms autoinstall), then sudo mokutil --import "
        "{} and reboot to enrol the key in MokManager; {}",
        key, remove);
    return cause;
  }
  const std::string state = dkms->enrolled == false ? "which is not enrolled (not in MokListRT)"
                                                    : "which may not be enrolled (MokListRT could not be read)";
  cause.why = fmt::format(
      "Secure Boot is on and amdgpu-dkms is installed ({}): DKMS signs its amdgpu module with {}, {}, or the "
      "module is not signed at all; the kernel refuses it ('Key was rejected by service', 'Loading of unsigned "
      "module is rejected')",
      dkms->evidence, key, state);
  cause.fix =
      dkms->import_pending
          ? fmt::format(
                "A key waits to be enrolled (MokNew): reboot and choose Enroll MOK in MokManager, "
                "then confirm with the password given to mokutil; {}",
                remove)
          : fmt::format("sudo mokutil --import {}, reboot and choose Enroll MOK in MokManager; {}", key, remove);
  return cause;
}

}  // namespace rocmtune::detect
