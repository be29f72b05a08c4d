// The boot setups of ostree-booted systems (detect/ostree_boot.h), behind boot::Setup:
//   rpm-ostree  `rpm-ostree kargs --append/--delete/--replace` (plan/rpm_ostree_argv.h): a new
//               deployment with other arguments, the default from the next boot on; what rocmtune
//               added is remembered in plan::kCmdlineTokensState like the other in-place setups.
//               rocmtune's modprobe.d drop-in reaches the initramfs only through `rpm-ostree
//               initramfs-etc --track` (no dracut: the image's initramfs is built with it).
//   bootc       rocmtune's own source of arguments (`x-options-source-rocmtune` in the BLS
//               entry): `bootc loader-entries set-options-for-source --source rocmtune
//               --options "..."` (plan/bootc_argv.h) where the installed bootc has it, else
//               refused with the command to run and the kargs.d alternative.
// Both read the next boot's command line from the staged deployment when one is staged (and
// both tools change that one: rpm-ostree's kargs asks rpmostreed for the pending deployment's boot
// config, src/app/rpmostree-builtin-kargs.cxx `is_pending`; bootc's set_options_for_source_staged
// starts from the staged deployment), else from the default deployment's BLS entry; no trial
// boots (a new deployment is already a "boot this next, keep the old one to go back to").
#pragma once

#include <optional>
#include <string>

#include "boot/setup.h"
#include "sys/staged_deployment.h"
#include "util/result.h"

namespace rocmtune::boot {

const Setup& RpmOstreeCmdlineSetup();
const Setup& BootcCmdlineSetup();

// The BLS entry of the deployment the next boot starts (root-relative path under
// boot/loader/entries). ostree names entries ostree-N[-OS].conf with N = number of deployments
// - index and writes `version N` (ostree-sysroot-deploy.c bootloader_entry_filename and
// install_deployment_kernel), and reads them sorted by `version`, highest first
// (ostree-sysroot.c compare_boot_loader_configs, strverscmp): the first is the default, index 0.
Result<std::string> OstreeDefaultEntry(const sys::Root& root);

// The next boot's command line on ostree: a staged deployment's (sys/staged_deployment.h: ostree
// writes its entry at shutdown) "kargs", or its merge deployment's entry's options when it has
// none; without one (or with one locked, which ostree leaves at shutdown) the default entry's
// options. Unknown, with the reason, when the staged deployment cannot be read.
NextBoot NextBootFromOstree(const BootContext& ctx);
// The staged deployment that boots next: nullopt when none is staged, it is locked, or unreadable
// (NextBootFromOstree says why).
std::optional<sys::StagedDeployment> PendingStaged(const sys::Root& root);
// The BLS entry whose `ostree=` argument leads to `deploy_dir` ("ostree/deploy/OS/deploy/NAME").
std::optional<std::string> OstreeEntryOf(const sys::Root& root, std::string_view deploy_dir);

// `rpm-ostree initramfs-etc` for rocmtune's modprobe.d drop-in written or removed by `plan`
// (boot/initramfs.cc on the rpm-ostree setup).
void AddRpmOstreeInitramfsEtc(const BootContext& ctx, plan::Plan& plan);

}  // namespace rocmtune::boot
