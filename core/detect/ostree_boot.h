// ostree-booted systems (Fedora Atomic, Bazzite, bootc images): the running root is one
// deployment of /ostree/deploy/OS/deploy/CHECKSUM.SERIAL, /boot/loader is a symlink to
// loader.0 or loader.1 that ostree swaps at each deployment, and /etc/default/grub, the BLS
// entries and the initramfs belong to deployments, not to the admin's edits. Which tool manages
// the deployments (rpm-ostree or bootc) decides how kernel arguments are changed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "detect/boot_setup.h"
#include "sys/root.h"

namespace rocmtune::detect {

// What a deployment's .origin file (a GKeyFile, written by ostree/rpm-ostree/bootc) holds that
// rocmtune reads: where the deployment comes from, and rpm-ostree's local state. rpm-ostree's
// rust/src/origin.rs: [origin] refspec / baserefspec / container-image-reference, and the groups
// [rpmostree] (initramfs-etc=, ...), [packages], [overrides], [modules] for client-side changes.
struct OstreeOrigin {
  std::optional<std::string> refspec;          // [origin] refspec or baserefspec
  std::optional<std::string> container_image;  // [origin] container-image-reference
  std::vector<std::string> initramfs_etc;      // [rpmostree] initramfs-etc: /etc files in the initramfs
  // A group bootc reads as local rpm-ostree changes (bootc crates/lib/src/utils.rs
  // origin_has_rpmostree_stuff): such a deployment is not bootc-compatible.
  bool rpmostree_changes = false;
};

// Never fails: what it cannot read is absent (bad lines are skipped, as GKeyFile's readers do not
// guess).
OstreeOrigin ParseOstreeOrigin(std::string_view content);

// The deployment directory (root-relative ".../ostree/deploy/OS/deploy/CSUM.N") an `ostree=`
// argument ("/ostree/boot.1/OS/BOOTCSUM/0") names, its links followed beneath the root as
// ostree-prepare-root follows them; nullopt when it does not resolve to one.
std::optional<std::string> DeploymentDir(const sys::Root& root, std::string_view ostree_arg);
// The booted deployment's directory, from the `ostree=` argument of /proc/cmdline.
std::optional<std::string> BootedDeployment(const sys::Root& root);
// A deployment's origin (DIR.origin beside DIR); nullopt when there is none or it is unreadable.
std::optional<OstreeOrigin> ReadOrigin(const sys::Root& root, std::string_view deployment_dir);

// Fills `setup` and returns true when the tree is an ostree-booted system. kind is kRpmOstree or
// kBootc, or nullopt (unknown: ostree without either tool) with the evidence that it is ostree.
bool DetectOstreeBoot(const sys::Root& root, BootSetup& setup);

}  // namespace rocmtune::detect
