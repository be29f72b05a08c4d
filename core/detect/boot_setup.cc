#include "detect/boot_setup.h"

#include <array>
#include <cerrno>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "detect/loader_vars.h"
#include "detect/ostree_boot.h"
#include "util/enum_names.h"
#include "util/text.h"

namespace rocmtune::detect {
namespace {

std::optional<std::string> FirstExisting(const sys::Root& root, std::initializer_list<std::string_view> paths) {
  for (std::string_view p : paths)
    if (root.Exists(p)) return std::string(p);
  return std::nullopt;
}

bool HasBlsEntries(const sys::Root& root) {
  auto names = root.ListDir("boot/loader/entries");
  if (!names) return false;
  for (const std::string& n : *names)
    if (n.size() > 5 && n.ends_with(".conf")) return true;
  return false;
}

bool GrubEnablesBls(const sys::Root& root) {
  auto content = root.ReadFile("etc/default/grub", 65536);
  if (!content) return false;
  for (std::string_view line : text::SplitLines(*content)) {
    line = text::Trim(line);
    if (line.starts_with("GRUB_ENABLE_BLSCFG=")) {
      std::string_view v = line.substr(19);
      return v == "true" || v == "\"true\"" || v == "'true'";
    }
  }
  return false;
}

// kernelstub (pop-os/kernelstub): its configuration (kernelstub/config.py: /etc/kernelstub/configuration,
// JSON), or its program beside the entry it writes (kernelstub/installer.py: $ESP/loader/entries/
// <OS>-current.conf; Pop!_OS's is Pop_OS-current.conf). A system booted by another loader
// (LoaderInfo "GRUB ...") is not booted from kernelstub's entries, whatever is installed.
bool DetectKernelstub(const sys::Root& root, const std::optional<std::string>& info, BootSetup& setup) {
  if (info && !info->starts_with("systemd-boot ")) return false;
  constexpr std::string_view kConfig = "etc/kernelstub/configuration";
  auto program = FirstExisting(root, {"usr/bin/kernelstub", "bin/kernelstub"});
  std::optional<std::string> entry;
  for (std::string_view esp : kEspCandidates)
    if (std::string p = fmt::format("{}/loader/entries/Pop_OS-current.conf", esp); root.Exists(p)) entry = p;
  if (!root.Exists(kConfig) && !(program && entry)) return false;
  setup.kind = BootKind::kKernelstub;
  if (root.Exists(kConfig)) setup.evidence.emplace_back(kConfig);
  if (program) setup.evidence.push_back(*program);
  if (entry) setup.evidence.push_back(*entry);
  return true;
}

void DetectLoader(const sys::Root& root, BootSetup& setup) {
  // The loader that booted this system names itself in LoaderInfo ("systemd-boot 252.33"; GRUB's
  // bli module writes "GRUB 2.12"): evidence that needs no access to the ESP, which Debian mounts
  // readable by root only (umask=0077), so rocmtuned's user and `status` as a user see it too.
  std::optional<std::string> info = ReadLoaderString(root, "LoaderInfo");
  if (DetectKernelstub(root, info, setup)) return;
  bool booted_by_sdboot = info && info->starts_with("systemd-boot ");
  // systemd-boot keeps loader.conf on the ESP (/efi, /boot/efi or /boot). A loader.conf left there
  // while another loader (LoaderInfo) boots the system does not make it a systemd-boot system.
  auto conf =
      !info || booted_by_sdboot
          ? FirstExisting(root, {"efi/loader/loader.conf", "boot/efi/loader/loader.conf", "boot/loader/loader.conf"})
          : std::nullopt;
  if (booted_by_sdboot || conf) {
    setup.kind = BootKind::kSystemdBoot;
    if (booted_by_sdboot) setup.evidence.push_back(LoaderVarPath("LoaderInfo"));
    if (conf) setup.evidence.push_back(*conf);
    if (root.Exists("etc/kernel/cmdline")) setup.evidence.push_back("etc/kernel/cmdline");
    return;
  }
  // An ESP this process cannot list could hold loader.conf (systemd-boot) whatever else is here: a
  // leftover /etc/default/grub (grub-common) would otherwise make it GRUB for a user and
  // systemd-boot for root. Unknown, with the way out; LoaderInfo, readable by all, decides first.
  if (!info)
    if (auto hidden = HiddenEsp(root)) {
      setup.evidence.push_back(*hidden);
      setup.why_unknown =
          fmt::format("cannot read {} as this user: run as root or through rocmtuned", root.Display(*hidden));
      return;
    }
  if (root.Exists("etc/default/grub")) {
    setup.evidence.push_back("etc/default/grub");
    if (HasBlsEntries(root) && (GrubEnablesBls(root) || root.Exists("boot/grub2"))) {
      setup.kind = BootKind::kGrubBls;
      setup.evidence.push_back("boot/loader/entries");
      return;
    }
    // Reading /etc/default/grub.d/*.cfg is a Debian patch to grub-mkconfig.
    if (auto p = FirstExisting(root, {"etc/default/grub.d", "usr/sbin/update-grub"})) {
      setup.kind = BootKind::kGrubDebian;
      setup.evidence.push_back(*p);
      return;
    }
    setup.kind = BootKind::kGrub;
    return;
  }
  if (root.Exists("etc/kernel/cmdline")) {
    setup.kind = BootKind::kSystemdBoot;
    setup.evidence.push_back("etc/kernel/cmdline");
  }
}

void DetectInitramfs(const sys::Root& root, BootSetup& setup) {
  for (const InitramfsToolRow& tool : InitramfsTools()) {
    for (std::string_view p : tool.evidence) {
      if (!p.empty() && root.Exists(p)) {
        setup.initramfs = tool.kind;
        setup.initramfs_evidence.emplace_back(p);
        return;
      }
    }
  }
}

constexpr EnumNames<BootKind, 7> kBootKindNames = {{
    {BootKind::kGrubDebian, "grub-debian"},
    {BootKind::kGrub, "grub"},
    {BootKind::kGrubBls, "grub-bls"},
    {BootKind::kSystemdBoot, "systemd-boot"},
    {BootKind::kRpmOstree, "rpm-ostree"},
    {BootKind::kBootc, "bootc"},
    {BootKind::kKernelstub, "kernelstub"},
}};
static_assert(Distinct(kBootKindNames));

}  // namespace

std::string_view BootKindName(BootKind kind) { return NameOf(kBootKindNames, kind, "unknown"); }

std::optional<BootKind> ParseBootKind(std::string_view name) { return ParseName(kBootKindNames, name); }

std::optional<std::string> HiddenEsp(const sys::Root& root) {
  if (root.supplement()) return std::nullopt;  // rocmtune-helper listed every candidate as root
  for (std::string_view esp : kEspCandidates) {
    for (const std::string& dir : {std::string(esp), fmt::format("{}/loader", esp)}) {
      auto names = root.ListDir(dir);
      if (!names && names.error().errno_value == EACCES) return dir;
    }
  }
  return std::nullopt;
}

BootSetup DetectBootSetup(const sys::Root& root) {
  BootSetup setup;
  // An ostree deployment also has /etc/default/grub, BLS entries and dracut: none of them is
  // where its kernel arguments or its initramfs are made.
  if (DetectOstreeBoot(root, setup)) return setup;
  DetectLoader(root, setup);
  DetectInitramfs(root, setup);
  return setup;
}

}  // namespace rocmtune::detect
