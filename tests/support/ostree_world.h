// ostree-booted worlds made by Debian's real `ostree` tool: a sysroot (`ostree admin init-fs`,
// `os-init`), a commit of a tiny tree with a kernel and an initramfs under usr/lib/modules/VER/,
// and deployments (`ostree admin deploy --karg=...`), so the boot entries, the loader.N swap,
// the deploy directories and their .origin files are ostree's own; then what the booted system
// shows besides: /run/ostree-booted, a /proc/cmdline with the booted entry's `ostree=`, /ostree
// as a link into /sysroot (as in Fedora's trees), /boot as the mounted boot partition.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rocmtune::testing {

// Why ostree worlds cannot be made here (no `ostree` on PATH, or no rpm to fill a bootc world's
// rpm database), for GTEST_SKIP; nullopt: they can.
std::optional<std::string> OstreeUnavailable();

struct OstreeWorldSpec {
  // bootc: the deployments' origin names a container image (as bootc writes it) and
  // /usr/bin/bootc is there; else a Silverblue refspec origin and only /usr/bin/rpm-ostree.
  bool bootc = false;
  // bootc only: the versions of the packages bootc and ostree-libs put into the world's rpm
  // database by the real rpm (tests/support/rpm_packages.h), owning /usr/bin/bootc and
  // /usr/lib64/libostree-1.so.1; nullopt: that package is not installed. rocmtune reads them for
  // `loader-entries set-options-for-source` (bootc 1.15.2 and ostree 2026.1 or later).
  std::optional<std::string> bootc_version = "1.16.0";
  std::optional<std::string> ostree_version = "2026.1";
  // The kernel arguments of each deployment, oldest first: the last is the default (and booted,
  // unless `booted_index` says otherwise), the others rollback deployments.
  std::vector<std::vector<std::string>> kargs = {
      {"root=UUID=439868dc-c5d4-4754-8106-ac392fe377cd", "rw", "rhgb", "quiet"}};
  // Which deployment /proc/cmdline boots, oldest = 0; nullopt: the default (the last).
  std::optional<size_t> booted_index;
  // Extra origin lines for the default deployment ("[rpmostree]\ninitramfs-etc=/etc/x;\n").
  std::string origin_extra;
};

// Turns the tree at `root` (a world copy) into an ostree-booted system as `spec` says: its
// boot/loader is replaced by ostree's. Throws with the tool's output when a step fails.
void MakeOstreeWorld(const std::string& root, const OstreeWorldSpec& spec);

}  // namespace rocmtune::testing
