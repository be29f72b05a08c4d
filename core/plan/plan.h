// A plan: the ordered operations that would bring the system to the desired state, each
// carrying the `before` it expects. Computing a plan never writes.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sys/root_id.h"

namespace rocmtune::plan {

enum class OpKind { kWriteFile, kRemoveFile, kWriteSysfs, kRegenerate };

// The part of rocmtune an op belongs to; plans and journals spell it Name(backend).
enum class BackendId { kModprobe, kCmdline, kSysfs, kEnv, kInitramfs, kBootloader, kService };

// The programs that rebuild boot files from the files rocmtune edits, and the one-shot switches
// of trial boots (boot/trial_boot.h): the only programs the helper runs. A regenerate op's path
// is Name(regenerator); regenerator.cc holds the one table.
enum class Regenerator {
  kUpdateGrub,
  kGrubMkconfig,
  kGrub2Mkconfig,
  kGrubby,
  kKernelInstall,  // bootloader
  kInitramfsTools,
  kDracut,
  kMkinitcpio,
  kBooster,  // initramfs
  kGrubEditenv,
  kGrub2Editenv,
  kBootctl,                // bootloader: a trial's one-shot switch (next_entry, LoaderEntryOneShot)
  kSystemctl,              // service: daemon-reload, try-restart of the service a drop-in changed
  kBusctl,                 // service: power-profiles-daemon's SetActionEnabled (0.30 on)
  kRpmOstreeKargs,         // bootloader: `rpm-ostree kargs`, a new deployment with other arguments
  kRpmOstreeInitramfsEtc,  // initramfs: `rpm-ostree initramfs-etc`, /etc files carried into it
  kBootc,                  // bootloader: `bootc loader-entries set-options-for-source` (plan/bootc_argv.h)
  kKernelstub,             // bootloader: Pop!_OS's `kernelstub -a/-d OPTIONS` (boot/kernelstub_setup.cc)
};

struct RegeneratorRow {
  Regenerator id;
  std::string_view name;     // op.path, and what plans and results show
  std::string_view program;  // argv[0], a bare name
  BackendId backend;
  // The files it (re)writes, "dir/prefix*suffix" (at most one '*', in the last component):
  // verify's evidence that a pending run was made by hand (journal/attention.h).
  std::string_view artifacts;
};

std::span<const RegeneratorRow> Regenerators();
const RegeneratorRow& Row(Regenerator regenerator);
std::string_view Name(Regenerator regenerator);
std::string_view Name(BackendId backend);
// nullopt for a name no table has: reading a plan or journal with one is an error.
std::optional<Regenerator> ParseRegenerator(std::string_view name);
// The row whose program is `program` (argv[0]): an undo's name when its inverse is another program
// (rpm-ostree has two rows: its undo keeps its name).
std::optional<Regenerator> RegeneratorOfProgram(std::string_view program);
std::optional<BackendId> ParseBackendId(std::string_view name);
// The id of a trial boot's entry in every boot setup (boot/trial_boot.h): GRUB's `menuentry
// --id`, a BLS entry's file name without ".conf".
inline constexpr std::string_view kTrialEntryId = "rocmtune-trial";
// A trial's one-shot switch undone (a rollback, a revert): `grub-editenv F set next_entry=X` <->
// `grub-editenv F unset next_entry` (grub2-editenv alike), `bootctl set-oneshot X` <-> `bootctl
// set-oneshot ""`; nullopt for any other argv.
std::optional<std::vector<std::string>> InverseSwitch(const std::vector<std::string>& argv);
// `busctl call org.freedesktop.UPower.PowerProfiles ... SetActionEnabled sb amdgpu_dpm true|false`:
// the one busctl command a plan has (the helper allows no other).
std::vector<std::string> PpdSetActionArgv(bool enabled);
// `systemctl daemon-reload` and `systemctl try-restart power-profiles-daemon.service`.
std::vector<std::string> SystemctlArgv(bool restart);

struct Op {
  OpKind kind = OpKind::kWriteFile;
  BackendId backend = BackendId::kModprobe;
  std::string path;                   // root-relative file or sysfs attribute; Name(Regenerator) for kRegenerate
  std::optional<std::string> before;  // content expected now (nullopt: must not exist)
  std::optional<std::string> after;   // content to write (nullopt for kRemoveFile / kRegenerate)
  std::vector<std::string> argv;      // kRegenerate: the command, run without a shell
  std::string reason;                 // why this op exists, one line
};

struct Message {
  std::string key;  // the knob it concerns, may be empty
  std::string message;
  std::string source;  // the citation that makes it true, may be empty
};

enum class Regen { kNo, kPending, kDone };

// What the user asked for, recorded with the transaction (history, active profile, revert).
struct Intent {
  std::string verb;               // "apply", "set", "unset", "revert", "reset", "reapply"
  std::string profile;            // apply: the profile's name
  std::vector<std::string> args;  // set/unset: the keys and assignments as typed
  std::string reverts;            // revert: the transaction id it undoes
  std::vector<std::string> with;  // apply: optional items asked for with --with
  // apply of a profile with `reset = true` (stock): like `reset`, it ends everything before it.
  bool resets = false;
};

struct Plan {
  Intent intent;
  // The root the plan was made for; the helper refuses to run it on any other (or without it).
  std::optional<sys::RootId> root;
  std::vector<Op> ops;
  std::vector<Message> warnings;
  // What a profile says besides its knobs (advice, facts to know): neither a warning nor a change.
  std::vector<Message> notes;
  std::vector<Message> refused;  // any refusal: nothing of the plan may be applied
  // Refusals --force overrides (a setting that does nothing here and taints the kernel): the
  // change path (api::CarryOut) makes them refusals without --force and warnings with it.
  std::vector<Message> needs_force;
  // Drift: files rocmtune owns that someone else edited, or that changed since a transaction
  // being reverted. Nothing is applied while there are conflicts, unless forced.
  std::vector<Message> conflicts;
  bool reboot_required = false;
  Regen initramfs = Regen::kNo;
  Regen bootloader = Regen::kNo;
  // Recorded as a transaction even with no op (an apply or a revert only): an apply of a profile
  // that is not the active one makes it active, a revert marks what it undoes as reverted
  // (journal/history.h). The core decides; the helper records only what a plan asks for.
  bool record_if_empty = false;

  bool empty() const { return ops.empty(); }
};

// Whether carrying the plan out commits a transaction: it has ops, or it is an apply or a revert
// asking to be recorded with none. The helper records exactly this, and `--check` reports it as
// `changed` (a check says what the run will then say).
inline bool WillRecord(const Plan& plan) {
  return !plan.ops.empty() || (plan.record_if_empty && (plan.intent.verb == "apply" || plan.intent.verb == "revert"));
}

std::string_view OpKindName(OpKind kind);
std::string_view RegenName(Regen regen);

}  // namespace rocmtune::plan
