// Which boot loader setup and initramfs tool a system uses, decided from evidence in the
// tree (files the tools own), never from os-release alone.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sys/root.h"

namespace rocmtune::detect {

struct BootSetup {
  // "grub-debian" (GRUB reading /etc/default/grub.d drop-ins: Debian, Ubuntu),
  // "grub" (upstream GRUB: only /etc/default/grub), "grub-bls" (GRUB with BLS entries:
  // Fedora, RHEL), "systemd-boot" (/etc/kernel/cmdline, kernel-install); nullopt: unknown.
  std::optional<std::string> kind;
  std::vector<std::string> evidence;  // root-relative paths that decided it
  // "initramfs-tools", "dracut", "mkinitcpio", "booster"; nullopt: unknown.
  std::optional<std::string> initramfs;
  std::vector<std::string> initramfs_evidence;
};

BootSetup DetectBootSetup(const sys::Root& root);

}  // namespace rocmtune::detect
