// One boot setup (detect::BootKind) and its ways with the kernel command line, behind one small
// interface: what rocmtune owns there and how it is stored, how the next boot's command line is
// read, which command lines an edit touches, what it refuses, and which files it edits and which
// regenerator it runs, and its trial boot (or why it has none). The cmdline backend, next_boot.cc,
// cmdline_owned.cc, file_findings.cc and the helper's trial rules ask this interface; none of them
// compares boot kinds (power-profiles-daemon's ppd-driver.h: one class per driver, one list of
// them in setups.cc SetupFor). One class per setup, one file each:
//   grub-debian   rocmtune's drop-in /etc/default/grub.d/zz-rocmtune.cfg; update-grub (grub_debian_setup.cc)
//   grub          token edit of GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub; grub-mkconfig (grub_setup.cc)
//   grub-bls      grubby --update-kernel=ALL where installed, else the options line of every BLS
//                 entry; GRUB_CMDLINE_LINUX for kernels installed later (grub_bls_setup.cc)
//   systemd-boot  /etc/kernel/cmdline; kernel-install (the next boot: the default loader entry)
//                 (systemd_boot_setup.cc)
//   kernelstub    `kernelstub -a/-d` (kernelstub_setup.cc); /etc/kernel/cmdline has no effect there
//   rpm-ostree    rpm-ostree kargs; bootc: bootc loader-entries set-options-for-source (ostree_setups.h)
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "boot/boot_context.h"
#include "boot/cmdline_owned.h"
#include "boot/next_boot.h"
#include "detect/boot_setup.h"
#include "plan/plan.h"
#include "util/result.h"

namespace rocmtune::boot {

// What a `set`/`unset` changes of rocmtune's tokens, worked out by the backend for every setup.
struct CmdlineChange {
  std::span<const std::string> add;     // tokens placed: each replaces the last token of its key, or goes last
  std::span<const std::string> remove;  // keys whose rocmtune tokens go
  std::span<const std::string> tokens;  // all of rocmtune's tokens after the change
  std::optional<std::string> state;     // plan::kCmdlineTokensState after the change; nullopt: removed
};

// A trial boot's command line (Setup::PlanTrial).
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

class Setup {
 public:
  virtual ~Setup() = default;
  virtual detect::BootKind Kind() const = 0;

  // Whether rocmtune edits the admin's command lines in place (and remembers what it added or
  // replaced in plan::kCmdlineTokensState); false: a file of rocmtune's own holds its tokens.
  virtual bool InPlace() const { return true; }
  // What rocmtune owns on this setup's command line now.
  virtual std::vector<OwnedToken> Owned(const BootContext& ctx) const;
  // Whether the next boot's command line is read from the ESP's loader entries (which rocmtuned
  // reads through rocmtune-helper where the ESP is root's only: boot/boot_files.h).
  virtual bool ReadsEsp() const { return false; }
  // The files the next boot's command line is read from, whose unreadability is a finding.
  virtual std::vector<SetupFile> FilesRead() const { return {}; }
  // The next boot's command line, token by token with file and line (next_boot.h).
  virtual NextBoot ReadNextBoot(const BootContext& ctx) const = 0;
  // Each command line an in-place edit touches, with its file (cmdline_owned.h ReplacedAdminToken).
  virtual std::vector<std::pair<std::string, std::string>> EditedCmdlines(const BootContext& ctx) const = 0;
  // Why this setup cannot put the admin's `token` back after replacing it; nullopt: it can.
  virtual std::optional<std::string> RefuseReplacing(const BootContext& /*ctx*/, std::string_view /*token*/) const {
    return std::nullopt;
  }
  // The file edits and the regenerator that carry `change` to the next boot; what it refuses
  // goes to plan.refused.
  virtual void PlanChange(const BootContext& ctx, const CmdlineChange& change, plan::Plan& plan) const = 0;

  // Trial boots (`--trial`): the next boot, and only it, boots the default entry's command line
  // plus the trial's tokens from an entry of rocmtune's own; the boot after it is the old
  // configuration by itself (a panic, a hang, a failed check). One override per setup.
  //
  // Why a one-shot boot cannot be trusted here (exit 3 with this reason); nullopt: it can.
  virtual std::optional<std::string> RefuseTrial(const BootContext& ctx) const;
  // The ops that prepare the trial boot: the entry (a file op) and the one-shot switch (a run
  // op), in the order the helper carries them out. What it refuses goes to plan.refused.
  virtual void PlanTrial(const BootContext& ctx, const TrialBoot& trial, plan::Plan& plan) const;
  // The ops that undo PlanTrial: the entry removed, a switch not yet consumed cleared. Nothing
  // when there is nothing of a trial left (idempotent).
  virtual void PlanTrialCleanup(const BootContext& ctx, plan::Plan& plan) const;
  // The whole trial entry at `path` as this setup renders it from the files in `root` now: the
  // planner writes it, the helper's allow-list renders it again and refuses any other content.
  // Err when `path` is not this setup's trial entry (a setup without trial boots has none) or the
  // default entry cannot be known.
  Result<std::string> RenderTrialEntry(const sys::Root& root, std::string_view path, const TrialBoot& trial) const;

 protected:
  // RenderTrialEntry's part per setup: nullopt when `path` is not its trial entry.
  virtual std::optional<Result<std::string>> TrialEntry(const sys::Root& /*root*/, std::string_view /*path*/,
                                                        const TrialBoot& /*trial*/) const {
    return std::nullopt;
  }
};

// The setup of `kind`; nullptr when the boot setup is unknown (nothing can be edited).
const Setup* SetupFor(std::optional<detect::BootKind> kind);

// Computed once per context (BootContext::next_boot) from SetupFor's setup: every knob of a `status` asks it.
const NextBoot& ReadNextBoot(const BootContext& ctx);

// The command line the next boot will use, as this boot setup computes it; nullopt when it
// cannot be known without running code (see grub_config.h) or the setup is unknown: the text of
// ReadNextBoot.
std::optional<std::string> NextBootCmdline(const BootContext& ctx, std::string* why_unknown = nullptr);

// Where an in-place edit of `key` goes on boot setup `setup`: nullopt when none of the edited command
// lines has `key` (rocmtune's token is added, and later removed); else the admin's token that every edited command line
// ends with, which rocmtune's token replaces and which is remembered to be put back. Fails when the edited command
// lines disagree (one has the key, another not, or other spellings), when the admin's token is not one the helper may
// write back, or when the setup refuses to put it back (Setup::RefuseReplacing: grubby, whose inverse, used by
// revert, removes the key).
Result<std::optional<std::string>> ReplacedAdminToken(const BootContext& ctx, const Setup& setup, std::string_view key);

// SetupFor(kind)->RenderTrialEntry: what the helper's allow-list asks (helper/trial_boot_rules.cc).
Result<std::string> RenderTrialEntry(const sys::Root& root, detect::BootKind kind, std::string_view path,
                                     const TrialBoot& trial);

}  // namespace rocmtune::boot
