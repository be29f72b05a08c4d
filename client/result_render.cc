#include "client/result_render.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "plan/admin_lines.h"
#include "plan/plan.h"
#include "plan/plan_json.h"

namespace rocmtune::client {
namespace {

const Doc& List(const Doc& doc, std::string_view key) {
  static const Doc kEmpty = Doc::array();
  auto it = doc.find(key);
  return it != doc.end() && it->is_array() ? *it : kEmpty;
}

void PrintMessages(std::string_view label, const Doc& messages) {
  for (const Doc& m : messages) {
    std::string source = Field(m, "source", "");
    fmt::print("{}: {}{}\n", label, Field(m, "message", ""),
               source.empty() ? "" : fmt::format("\n         source: {}", source));
  }
}

void PrintChanges(const Doc& changes, bool diff) {
  for (const Doc& c : changes) {
    auto kind = plan::ParseOpKind(Field(c, "action", ""));
    std::string path = Field(c, "path", "");
    std::string reason = Field(c, "reason", "");
    if (!kind) {
      fmt::print("{} /{} ({})\n", Field(c, "action"), path, reason);
      continue;
    }
    switch (*kind) {
      case plan::OpKind::kWriteFile:
      case plan::OpKind::kRemoveFile:
        fmt::print("{} /{} ({})\n", *kind == plan::OpKind::kWriteFile ? "write" : "remove", path, reason);
        // The admin's own file: the one line that changes is always shown, not only with --diff.
        if (diff || plan::AdminLineFileOf(path)) fmt::print("{}\n", Field(c, "diff", ""));
        break;
      case plan::OpKind::kWriteSysfs: fmt::print("sysfs /{} <- {} ({})\n", path, Field(c, "value", ""), reason); break;
      case plan::OpKind::kRegenerate: {
        std::string cmd;
        // An argument of several words (grubby's --args=, bootc's --options) quoted, as it would be typed.
        for (const Doc& a : List(c, "argv")) {
          if (!a.is_string()) continue;
          const std::string word = a.get<std::string>();
          cmd += (cmd.empty() ? "" : " ") + (word.find(' ') == std::string::npos ? word : fmt::format("\"{}\"", word));
        }
        fmt::print("regenerate {}: {} ({})\n", path, cmd, reason);
        break;
      }
    }
  }
}

// The plan may not run: refused, or drift without --force (api::ChangeReport::blocked).
bool Blocked(const Doc& result, const Args& args) {
  return !List(result, "refused").empty() || (!List(result, "conflicts").empty() && !args.force);
}

}  // namespace

void PrintPlan(const Doc& result, const Args& args) {
  for (const Doc& s : List(result, "skipped"))
    if (s.is_string()) fmt::print("skipped: {}\n", s.get<std::string>());
  PrintMessages("refused", List(result, "refused"));
  PrintMessages(args.force ? "drift (forced)" : "drift", List(result, "conflicts"));
  PrintMessages("warning", List(result, "warnings"));
  PrintMessages("note", List(result, "notes"));
  const Doc& changes = List(result, "changes");
  if (Blocked(result, args)) fmt::print("Nothing {} changed.\n", args.check ? "would be" : "was");
  else if (changes.empty()) fmt::print("Nothing to change: what rocmtune manages is already as requested.\n");
  else PrintChanges(changes, args.diff || args.check);
}

void PrintOutcome(const Doc& result, const Args& args) {
  for (const Doc& e : List(result, "errors"))
    if (e.is_string()) PrintError(e.get<std::string>());
  if (Blocked(result, args)) return;
  if (List(result, "changes").empty()) {
    // An apply whose settings the admin already had is still recorded: its profile is active.
    if (!args.check && DocTrue(result, "changed"))
      fmt::print("Transaction {} recorded: nothing needed writing (undo: rocmtunectl revert {}).\n",
                 Field(result, "transaction"), Field(result, "transaction"));
    return;
  }
  const Doc& regen = result.contains("regenerated") ? result["regenerated"] : Doc::object();
  std::string initramfs = Field(regen, "initramfs", "no");
  std::string bootloader = Field(regen, "bootloader", "no");
  if (args.check) {
    fmt::print("\ninitramfs: {}, boot loader: {}, reboot required: {}\n", initramfs, bootloader,
               DocTrue(result, "reboot_required") ? "yes" : "no");
  } else if (DocTrue(result, "changed")) {
    std::string txn = Field(result, "transaction");
    // A trial's prepare wrote only its one-shot entry and state: `trial cancel` undoes it (and
    // tells the boot loader); a revert of it would leave the trial's state to the next boot.
    std::string undo = args.trial ? "rocmtunectl trial cancel" : fmt::format("rocmtunectl revert {}", txn);
    fmt::print("\nTransaction {} committed (undo: {}). initramfs: {}, boot loader: {}{}\n", txn, undo, initramfs,
               bootloader, DocTrue(result, "reboot_required") ? "; reboot to take effect" : "");
  }
}

}  // namespace rocmtune::client
