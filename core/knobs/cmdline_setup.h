// One boot setup (detect::BootKind) and its ways with the kernel command line, behind one small
// interface: what rocmtune owns there and how it is stored, how the next boot's command line is
// read, which command lines an edit touches, what it refuses, and which files it edits and which
// regenerator it runs. The cmdline backend, next_boot.cc, cmdline_owned.cc and file_findings.cc
// ask this interface; none of them compares boot kinds. The four setups are in cmdline_setups.cc:
//   grub-debian   rocmtune's drop-in /etc/default/grub.d/zz-rocmtune.cfg; update-grub
//   grub          token edit of GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub; grub-mkconfig
//   grub-bls      grubby --update-kernel=ALL where installed, else the options line of every BLS
//                 entry; GRUB_CMDLINE_LINUX for kernels installed later
//   systemd-boot  /etc/kernel/cmdline; kernel-install (the next boot: the default loader entry)
//   kernelstub    `kernelstub -a/-d` (kernelstub_setup.cc); /etc/kernel/cmdline has no effect there
//   rpm-ostree    rpm-ostree kargs; bootc: bootc loader-entries set-options-for-source (ostree_setups.h)
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

// A trial boot's command line (CmdlineSetup::PlanTrial).
struct TrialBoot {
  std::string id;  // the trial's id: `rocmtune.trial=<id>` is one of `tokens`
  // Added to the default entry's command line: the boot-affecting part of the change (kernel
  // options as they are, module options as `module.option=value`), `panic=N` and the id token.
  std::vector<std::string> tokens;
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
  // Whether the next boot's command line is read from the ESP's loader entries (which rocmtuned
  // reads through rocmtune-helper where the ESP is root's only: knobs/boot_files.h).
  virtual bool ReadsEsp() const { return false; }
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

  // Trial boots (`--trial`): the next boot, and only it, boots the default entry's command line
  // plus the trial's tokens from an entry of rocmtune's own; the boot after it is the old
  // configuration by itself (a panic, a hang, a failed check). One override per setup.
  //
  // Why a one-shot boot cannot be trusted here (exit 3 with this reason); nullopt: it can.
  virtual std::optional<std::string> RefuseTrial(const KnobContext& ctx) const;
  // The ops that prepare the trial boot: the entry (a file op) and the one-shot switch (a run
  // op), in the order the helper carries them out. What it refuses goes to plan.refused.
  virtual void PlanTrial(const KnobContext& ctx, const TrialBoot& trial, plan::Plan& plan) const;
  // The ops that undo PlanTrial: the entry removed, a switch not yet consumed cleared. Nothing
  // when there is nothing of a trial left (idempotent).
  virtual void PlanTrialCleanup(const KnobContext& ctx, plan::Plan& plan) const;
};

// The setup of `kind`; nullptr when the boot setup is unknown (nothing can be edited).
const CmdlineSetup* CmdlineSetupFor(std::optional<detect::BootKind> kind);

}  // namespace rocmtune::knobs
