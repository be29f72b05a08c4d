// cmdline backend: kernel command-line options, edited where this system's boot setup keeps
// them (decided from evidence by detect/boot_setup; each setup's files, reader, regenerator and
// refusals are one class behind knobs/cmdline_setup.h). The backend decides which tokens change;
// the setup where they are written.
// Token edits keep every other token and its order. A token the next boot already has with the
// wanted value is the admin's and is not written; one with another value is replaced in place and
// remembered, so unset/reset put it back (cmdline_owned.h, var/lib/rocmtune/cmdline-tokens).
#pragma once

#include <memory>

#include "knobs/backend.h"

namespace rocmtune::knobs {

// kernel-install's command line (systemd-boot / UKI), and the Boot Loader Specification entries.
inline constexpr std::string_view kKernelCmdlinePath = "etc/kernel/cmdline";
inline constexpr std::string_view kBlsEntriesDir = "boot/loader/entries";

// The cmdline backend, for the registry (knobs/registry.cc) — the only place that makes backends.
std::unique_ptr<Backend> MakeCmdlineBackend();

// The command line the next boot will use, as this boot setup computes it; nullopt when it
// cannot be known without running code (see grub_config.h) or the setup is unknown. Token by
// token, with where each is written: ReadNextBoot (next_boot.h), which this returns the text of.
std::optional<std::string> NextBootCmdline(const KnobContext& ctx, std::string* why_unknown = nullptr);

// Whether rocmtune put `key` (a kernel parameter: "iommu", "amdgpu.noretry") on the command line.
bool OwnsCmdlineKey(const KnobContext& ctx, std::string_view key);

}  // namespace rocmtune::knobs
