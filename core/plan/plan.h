// A plan: the ordered operations that would bring the system to the desired state, each
// carrying the `before` it expects. Computing a plan never writes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sys/root_id.h"

namespace rocmtune::plan {

enum class OpKind { kWriteFile, kRemoveFile, kWriteSysfs, kRegenerate };

struct Op {
  OpKind kind = OpKind::kWriteFile;
  std::string backend;                // "modprobe", "cmdline", "sysfs", "env", "initramfs", "bootloader"
  std::string path;                   // root-relative file or sysfs attribute; regenerator name for kRegenerate
  std::optional<std::string> before;  // content expected now (nullopt: must not exist)
  std::optional<std::string> after;   // content to write (nullopt for kRemoveFile / kRegenerate)
  std::vector<std::string> argv;      // kRegenerate: the command, run without a shell
  std::string reason;                 // why this op exists, one line
};

struct Message {
  std::string key;      // the knob it concerns, may be empty
  std::string message;
  std::string source;   // the citation that makes it true, may be empty
};

enum class Regen { kNo, kPending, kDone };

// What the user asked for, recorded with the transaction (history, active profile, revert).
struct Intent {
  std::string verb;                // "apply", "set", "unset", "revert", "reset"
  std::string profile;             // apply: the profile's name
  std::vector<std::string> args;   // set/unset: the keys and assignments as typed
  std::string reverts;             // revert: the transaction id it undoes
  std::vector<std::string> with;   // apply: optional items asked for with --with
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
  // Drift: files rocmtune owns that someone else edited, or that changed since a transaction
  // being reverted. Nothing is applied while there are conflicts, unless forced.
  std::vector<Message> conflicts;
  bool reboot_required = false;
  Regen initramfs = Regen::kNo;
  Regen bootloader = Regen::kNo;

  bool empty() const { return ops.empty(); }
};

std::string_view OpKindName(OpKind kind);
std::string_view RegenName(Regen regen);

}  // namespace rocmtune::plan
