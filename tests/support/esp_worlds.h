// Worlds derived from the bundled ones for the boot setups on an ESP (tests/worlds/README.md has
// the captured ones): each function turns a copy of the named world, at `root`, into the other
// machine. Used by the world tests, the crash test and the transcripts in the report.
#pragma once

#include <string>

namespace rocmtune::testing {

// From rx7900xtx (Ubuntu 22.04): Pop!_OS 22.04 booting kernelstub's systemd-boot entries.
// etc/kernelstub/configuration as kernelstub's config.py saves it (json.dump, indent=2) with
// Pop!_OS's default options, usr/bin/kernelstub (a no-op stub), boot/efi/loader/loader.conf
// (`default Pop_OS-current`, what kernelstub's installer.py writes) and the Pop_OS-current.conf
// and Pop_OS-oldkern.conf entries as its make_loader_entry writes them; GRUB's files removed except
// a leftover /etc/default/grub (grub-common). The ESP stays readable (mode 0755).
inline constexpr const char* kPopOsBase = "rx7900xtx";
void MakePopOs(const std::string& root);

// From rx5700xt (Ubuntu 24.04): systemd-boot entries on /boot/efi (two kernels, loader.conf
// `default` a glob), no /etc/kernel/cmdline, /etc/default/grub left by grub-common (no grub.d,
// no update-grub, no grub.cfg), a /proc/cmdline with the entry's iommu=pt. `root_only`: the ESP
// made 0700 as Debian and Ubuntu mount it (vfat umask=0077).
inline constexpr const char* kUbuntuEspBase = "rx5700xt";
void MakeUbuntuSdBoot(const std::string& root, bool root_only);

}  // namespace rocmtune::testing
