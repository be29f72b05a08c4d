// The kernel command line the next boot gets, token by token, with the file and line that
// carries each token: what `status` shows as CONFIGURED for kernel options and for module
// options given as `module.option=` (and where), as this boot setup (boot/setup.h) builds it:
//   grub-debian, grub  GRUB_CMDLINE_LINUX + GRUB_CMDLINE_LINUX_DEFAULT after /etc/default/grub
//                      (and, grub-debian, /etc/default/grub.d/*.cfg) as grub-mkconfig sources them
//   grub-bls           the `options` line of the running kernel's BLS entry, else the first entry
//   systemd-boot       the default loader entry's `options` (/etc/kernel/cmdline, which kernel-install
//                      copies into new entries, where the ESP has none)
//   kernelstub         the `user` kernel_options of /etc/kernelstub/configuration (kernelstub_setup.cc)
//   rpm-ostree, bootc  the default deployment's BLS entry (ostree_setups.h); unknown while a
//                      deployment is staged
// /proc/cmdline is what runs now, never what the next boot gets.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "boot/cmdline_tokens.h"

namespace rocmtune::boot {

struct BootContext;

struct NextBoot {
  std::optional<std::string> cmdline;  // the whole command line; nullopt: it cannot be known
  std::string why_unknown;             // when cmdline is nullopt
  std::vector<CmdlineTokenAt> tokens;  // the kernel's tokens (before "--"), in order, where written
  // Where the command line of kernels installed later comes from when it is not the next boot's
  // (systemd-boot: /etc/kernel/cmdline, which kernel-install copies into new entries), and its
  // tokens; empty: the same file, or none.
  std::string later_file;
  std::vector<CmdlineTokenAt> later_tokens;
};

// The next boot's command line as this system's setup reads it, once per context: ReadNextBoot
// and NextBootCmdline (setup.h).

// The token that decides `key` (the last one: the kernel's parse_args() applies each in turn);
// nullptr when the next boot's command line does not have it or is unknown. Keys compare as the
// kernel's parameq() does ('-' == '_').
const CmdlineTokenAt* DecidingToken(const NextBoot& next, std::string_view key);

// How each boot setup reads it (boot::Setup::ReadNextBoot calls one of these).
NextBoot NextBootFromGrub(const BootContext& ctx, bool debian_dropins);
NextBoot NextBootFromBls(const BootContext& ctx);
NextBoot NextBootFromKernelCmdline(const BootContext& ctx);
// The `options` line of one BLS entry (grub-bls, and an ostree deployment's entry: ostree_setups.h).
NextBoot NextBootFromEntry(const BootContext& ctx, const std::string& chosen);

// systemd-boot: the default loader entry's `options` (loader_entries.h), with /etc/kernel/cmdline
// as later_file; /etc/kernel/cmdline alone where the ESP has no Type #1 entry (UKIs).
NextBoot NextBootFromLoaderEntry(const BootContext& ctx);

// `text` starts at `line` of `file`; appends its kernel tokens with the line each begins on.
void AddNextBootTokens(std::string_view file, int line, std::string_view text, std::vector<CmdlineTokenAt>& out);

// "/etc/default/grub:6": a root-relative file and 1-based line as printed everywhere.
std::string WhereText(std::string_view file, int line);

}  // namespace rocmtune::boot
