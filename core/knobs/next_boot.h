// The kernel command line the next boot gets, token by token, with the file and line that
// carries each token: what `status` shows as CONFIGURED for kernel options and for module
// options given as `module.option=` (and where), as this boot setup (knobs/cmdline_setup.h) builds it:
//   grub-debian, grub  GRUB_CMDLINE_LINUX + GRUB_CMDLINE_LINUX_DEFAULT after /etc/default/grub
//                      (and, grub-debian, /etc/default/grub.d/*.cfg) as grub-mkconfig sources them
//   grub-bls           the `options` line of the running kernel's BLS entry, else the first entry
//   systemd-boot       /etc/kernel/cmdline, which kernel-install copies into new entries
//   rpm-ostree, bootc  the default deployment's BLS entry (ostree_setups.h); unknown while a
//                      deployment is staged
// /proc/cmdline is what runs now, never what the next boot gets.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "knobs/cmdline_tokens.h"

namespace rocmtune::knobs {

struct KnobContext;

struct NextBoot {
  std::optional<std::string> cmdline;  // the whole command line; nullopt: it cannot be known
  std::string why_unknown;             // when cmdline is nullopt
  std::vector<CmdlineTokenAt> tokens;  // the kernel's tokens (before "--"), in order, where written
};

// Computed once per context (KnobContext::next_boot): every knob of a `status` asks it.
const NextBoot& ReadNextBoot(const KnobContext& ctx);

// The token that decides `key` (the last one: the kernel's parse_args() applies each in turn);
// nullptr when the next boot's command line does not have it or is unknown. Keys compare as the
// kernel's parameq() does ('-' == '_').
const CmdlineTokenAt* DecidingToken(const NextBoot& next, std::string_view key);

// How each boot setup reads it (knobs::CmdlineSetup::ReadNextBoot calls one of these).
NextBoot NextBootFromGrub(const KnobContext& ctx, bool debian_dropins);
NextBoot NextBootFromBls(const KnobContext& ctx);
NextBoot NextBootFromKernelCmdline(const KnobContext& ctx);
// The `options` line of one BLS entry (grub-bls, and an ostree deployment's entry: ostree_setups.h).
NextBoot NextBootFromEntry(const KnobContext& ctx, const std::string& entry);

// "/etc/default/grub:6": a root-relative file and 1-based line as printed everywhere.
std::string WhereText(std::string_view file, int line);

}  // namespace rocmtune::knobs
