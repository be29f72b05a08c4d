// A plan: the ordered operations that would bring the system to the desired state, each
// carrying the `before` it expects. Computing a plan never writes.
#pragma once

#include <optional>
#include <string>
#include <vector>

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

struct Plan {
  std::vector<Op> ops;
  std::vector<Message> warnings;
  std::vector<Message> refused;  // any refusal: nothing of the plan may be applied
  bool reboot_required = false;
  Regen initramfs = Regen::kNo;
  Regen bootloader = Regen::kNo;

  bool empty() const { return ops.empty(); }
};

std::string_view OpKindName(OpKind kind);
std::string_view RegenName(Regen regen);

}  // namespace rocmtune::plan
