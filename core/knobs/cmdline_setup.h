// One boot setup (detect::BootKind) and its ways with the kernel command line, behind one small
// interface: what rocmtune owns there and how it is stored, how the next boot's command line is
// read, which command lines an edit touches, what it refuses, and which files it edits and which
// regenerator it runs. The cmdline backend, next_boot.cc, cmdline_owned.cc and file_findings.cc
// ask this interface; none of them compares boot kinds. The four setups are in cmdline_setups.cc:
//   grub-debian   rocmtune's drop-in /etc/default/grub.d/zz-rocmtune.cfg; update-grub
//   grub          token edit of GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub; grub-mkconfig
//   grub-bls      grubby --update-kernel=ALL where installed, else the options line of every BLS
//                 entry; GRUB_CMDLINE_LINUX for kernels installed later
//   systemd-boot  /etc/kernel/cmdline; kernel-install
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "detect/boot_setup.h"
#include "knobs/backend.h"
#include "knobs/cmdline_owned.h"
#include "knobs/next_boot.h"

namespace rocmtune::knobs {

// What a `set`/`unset` changes of rocmtune's tokens, worked out by the backend for every setup.
struct CmdlineChange {
  std::span<const std::string> add;     // tokens placed: each replaces the last token of its key, or goes last
  std::span<const std::string> remove;  // keys whose rocmtune tokens go
  std::span<const std::string> tokens;  // all of rocmtune's tokens after the change
  std::optional<std::string> state;     // plan::kCmdlineTokensState after the change; nullopt: removed
};

// A file (or, with a suffix, a directory of such files) the setup reads for the next boot.
struct SetupFile {
  std::string_view path;
  std::string_view dir_suffix;  // empty: a file
};

class CmdlineSetup {
 public:
  virtual ~CmdlineSetup() = default;
  virtual detect::BootKind Kind() const = 0;

  // Whether rocmtune edits the admin's command lines in place (and remembers what it added or
  // replaced in plan::kCmdlineTokensState); false: a file of rocmtune's own holds its tokens.
  virtual bool InPlace() const { return true; }
  // What rocmtune owns on this setup's command line now.
  virtual std::vector<OwnedToken> Owned(const KnobContext& ctx) const;
  // The files the next boot's command line is read from, whose unreadability is a finding.
  virtual std::vector<SetupFile> FilesRead() const { return {}; }
  // The next boot's command line, token by token with file and line (next_boot.h).
  virtual NextBoot ReadNextBoot(const KnobContext& ctx) const = 0;
  // Each command line an in-place edit touches, with its file (cmdline_owned.h ReplacedAdminToken).
  virtual std::vector<std::pair<std::string, std::string>> EditedCmdlines(const KnobContext& ctx) const = 0;
  // Why this setup cannot put the admin's `token` back after replacing it; nullopt: it can.
  virtual std::optional<std::string> RefuseReplacing(const KnobContext& /*ctx*/, std::string_view /*token*/) const {
    return std::nullopt;
  }
  // The file edits and the regenerator that carry `change` to the next boot; what it refuses
  // goes to plan.refused.
  virtual void PlanChange(const KnobContext& ctx, const CmdlineChange& change, plan::Plan& plan) const = 0;

  // A "boot once" hook (a trial boot of the new command line that falls back by itself) is to
  // be added here, one override per setup: GRUB's grub-reboot / GRUB_DEFAULT=saved, BLS entries
  // with grub2-reboot, systemd-boot's `bootctl set-oneshot` or boot counting.
};

// The setup of `kind`; nullptr when the boot setup is unknown (nothing can be edited).
const CmdlineSetup* CmdlineSetupFor(std::optional<detect::BootKind> kind);

}  // namespace rocmtune::knobs
