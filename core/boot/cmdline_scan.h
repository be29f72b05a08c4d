// Kernel command-line tokens where they are written, with the file and line of each: the boot
// configuration files rocmtune knows (GRUB's defaults and, on Debian, their grub.d drop-ins; BLS
// entries' `options` lines; kernel-install's /etc/kernel/cmdline) and the running command line
// (/proc/cmdline, line 1). For the findings on settings already on the machine; the next boot's
// value of a token, and where it is written, is ReadNextBoot's business (next_boot.h), not this scan's.
#pragma once

#include <string>
#include <vector>

#include "boot/boot_context.h"
#include "boot/cmdline_tokens.h"

namespace rocmtune::boot {

// Tokens before a bare "--" (what follows goes to init), in file order. GRUB variables
// (`$GRUB_CMDLINE_LINUX_DEFAULT`, `$tuned_params`) are not tokens and are skipped.
std::vector<CmdlineTokenAt> ScanCmdlineTokens(const BootContext& ctx);

// Names of the kernel options rocmtune knows (data/kernel_options.toml) on the running or the next
// boot's command line, whoever put them there, for `status` (amdgpu.x tokens are module
// parameters: the modprobe backend shows them).
std::vector<std::string> KnownOptionsInUse(const BootContext& ctx);

}  // namespace rocmtune::boot
