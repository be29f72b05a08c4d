// Pop!_OS's kernelstub (detect::BootKind::kKernelstub) behind boot::Setup: the next boot
// is the `user` kernel_options of /etc/kernelstub/configuration (kernelstub_config.h), which
// kernelstub writes into $ESP/loader/entries/Pop_OS-current.conf at every run; rocmtune changes
// them only through kernelstub itself, `kernelstub -d "OLD"` then `kernelstub -a "NEW"`
// (pop-os/kernelstub bin/kernelstub --add-options/--delete-options, application.py), and
// remembers its tokens in plan::kCmdlineTokensState. /etc/kernel/cmdline is not read there
// (kernelstub runs from /etc/kernel/postinst.d/zz-kernelstub, not kernel-install): never created.
#pragma once

#include "boot/setup.h"

namespace rocmtune::boot {

const Setup& KernelstubCmdlineSetup();

}  // namespace rocmtune::boot
