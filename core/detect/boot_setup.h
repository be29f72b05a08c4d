// Which boot loader setup and initramfs tool a system uses, decided from evidence in the
// tree (files the tools own), never from os-release alone.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "detect/initramfs_tool.h"
#include "sys/root.h"

namespace rocmtune::detect {

// The boot setups rocmtune knows. What each one edits, reads and regenerates is one class behind
// boot::Setup (boot/setup.h); the names are only for output and parsing.
enum class BootKind {
  kGrubDebian,   // "grub-debian": GRUB reading /etc/default/grub.d drop-ins (Debian, Ubuntu)
  kGrub,         // "grub": upstream GRUB, only /etc/default/grub
  kGrubBls,      // "grub-bls": GRUB with BLS entries (Fedora, RHEL)
  kSystemdBoot,  // "systemd-boot": /etc/kernel/cmdline, kernel-install
  kRpmOstree,    // "rpm-ostree": ostree deployments managed by rpm-ostree (detect/ostree_boot.h)
  kBootc,        // "bootc": ostree deployments of a container image managed by bootc
  kKernelstub,   // "kernelstub": Pop!_OS, systemd-boot entries written by kernelstub from its own configuration
};

// The one conversion each way between a BootKind and its name in JSON and text.
std::string_view BootKindName(BootKind kind);
std::optional<BootKind> ParseBootKind(std::string_view name);

// The places an EFI system partition is mounted (systemd-boot and bootctl look in the same ones,
// in this order; kernelstub's default esp_path is /boot/efi).
inline constexpr std::string_view kEspCandidates[] = {"efi", "boot/efi", "boot"};

struct BootSetup {
  std::optional<BootKind> kind;       // nullopt: unknown
  std::vector<std::string> evidence;  // root-relative paths that decided it
  // Why the kind is unknown when something this process may not read could decide it (an ESP
  // mounted root-only); empty: nothing was found, or the kind is known.
  std::string why_unknown;
  // The initramfs tool (detect/initramfs_tool.h); nullopt: unknown.
  std::optional<InitramfsKind> initramfs;
  std::vector<std::string> initramfs_evidence;
};

BootSetup DetectBootSetup(const sys::Root& root);

// The first ESP candidate that exists but this process cannot list (EACCES: Debian and Ubuntu
// mount the ESP with umask=0077); nullopt when every one is readable or absent, or when `root`
// carries what rocmtune-helper read of them as root (sys::RootSupplement).
std::optional<std::string> HiddenEsp(const sys::Root& root);

}  // namespace rocmtune::detect
