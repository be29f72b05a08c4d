#include "journal/revert.h"

#include <fmt/format.h>

#include "journal/history.h"
#include "plan/bootc_argv.h"
#include "plan/rpm_ostree_argv.h"

namespace rocmtune::journal {
namespace {

bool IsFileOp(const plan::Op& op) {
  return op.kind == plan::OpKind::kWriteFile || op.kind == plan::OpKind::kRemoveFile;
}

// The later committed, unreverted transaction that also wrote `path`, if any: the reason a
// file no longer holds what `txn` left.
const Transaction* LaterWriter(const std::vector<Transaction>& txns, const Transaction& txn, std::string_view path) {
  for (auto it = txns.rbegin(); it != txns.rend() && it->number > txn.number; ++it) {
    if (it->state != State::kCommitted || IsReverted(txns, *it)) continue;
    for (const plan::Op& op : it->ops)
      if (op.path == path) return &*it;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> InverseRegenerator(const std::vector<std::string>& argv) {
  if (auto inverse = plan::InverseSwitch(argv)) return *inverse;  // a trial boot's one-shot switch
  if (auto inverse = plan::InverseRpmOstree(argv)) return *inverse;
  // kernelstub -a X <-> -d X: what one run added the other takes off (the order of the others'
  // options is kernelstub's: -d is a set difference).
  if (argv.size() == 3 && argv[0] == plan::Row(plan::Regenerator::kKernelstub).program &&
      (argv[1] == "-a" || argv[1] == "-d"))
    return {argv[0], argv[1] == "-a" ? "-d" : "-a", argv[2]};
  if (argv.empty() || argv[0] != plan::Row(plan::Regenerator::kGrubby).program) return argv;
  std::vector<std::string> out;
  for (const std::string& a : argv) {
    if (a.starts_with("--args=")) out.push_back("--remove-args=" + a.substr(7));
    else if (a.starts_with("--remove-args=")) out.push_back("--args=" + a.substr(14));
    else out.push_back(a);
  }
  return out;
}

plan::Plan RevertPlan(const sys::Root& root, const std::vector<Transaction>& txns, const Transaction& txn, bool force,
                      const AttributeHolds& holds) {
  plan::Plan plan;
  plan.root = root.id();
  plan.intent = {"revert", "", {}, txn.id, {}};
  for (auto it = txn.ops.rbegin(); it != txn.ops.rend(); ++it) {
    const plan::Op& done = *it;
    if (IsFileOp(done)) {
      if (!ContentsKnown(txn, done)) {
        plan.conflicts.push_back(
            {"", fmt::format("/{}: what it held is root's alone (a private file); not reverted", done.path), ""});
        continue;
      }
      auto read = root.ReadFile(done.path);
      // What cannot be read (a directory, a FIFO, a file too big to be ours) is not absent, and
      // gives no `before` the helper could check: report it and leave it, even when forced.
      if (!read && read.error().code != ErrorCode::kNotFound) {
        plan.conflicts.push_back({"", fmt::format("{}; not reverted", read.error().message), ""});
        continue;
      }
      std::optional<std::string> current = read ? std::optional(*read) : std::nullopt;
      if (current == done.before) continue;  // already as before
      if (current != done.after) {
        const Transaction* later = LaterWriter(txns, txn, done.path);
        std::string why = later ? fmt::format("transaction {} ({}) changed it since; revert that first", later->id,
                                              later->intent.verb)
                                : std::string("it was edited since rocmtune wrote it");
        plan.conflicts.push_back({"", fmt::format("/{}: {}", done.path, why), ""});
        if (!force) continue;
      }
      plan::Op op;
      op.kind = done.before ? plan::OpKind::kWriteFile : plan::OpKind::kRemoveFile;
      op.backend = done.backend;
      op.path = done.path;
      op.before = current;
      op.after = done.before;
      op.reason = fmt::format("revert transaction {}", txn.id);
      plan.ops.push_back(std::move(op));
    } else if (done.kind == plan::OpKind::kWriteSysfs) {
      auto read = root.ReadFile(done.path);
      if (read && done.before && (holds ? holds(done.path, *read, *done.before) : *read == *done.before))
        continue;  // already as before
      plan::Op op = done;
      op.before = done.after;
      op.after = done.before;
      op.reason = fmt::format("revert transaction {}: {} back to its value before", txn.id, done.path);
      if (op.after) plan.ops.push_back(std::move(op));
    }
  }
  bool files_changed = !plan.ops.empty();
  for (const plan::Op& done : txn.ops) {
    if (done.kind != plan::OpKind::kRegenerate) continue;
    // bootc's source options: a change of their own, undone by setting what they were before.
    if (auto undo = plan::InverseBootc(done)) {
      if (undo->argv == done.argv) continue;
      undo->reason = fmt::format("revert transaction {}: {}", txn.id, done.reason);
      plan.bootloader = plan::Regen::kPending;
      plan.ops.push_back(std::move(*undo));
      continue;
    }
    if (!files_changed) continue;
    plan::Op op = done;
    op.argv = InverseRegenerator(done.argv);
    if (op.argv[0] != done.argv[0])  // another program (the service backend's undo): its name
      if (auto r = plan::RegeneratorOfProgram(op.argv[0])) op.path = std::string(plan::Name(*r));
    op.reason = fmt::format("revert transaction {}: {}", txn.id, done.reason);
    if (done.backend != plan::BackendId::kService)
      (done.backend == plan::BackendId::kInitramfs ? plan.initramfs : plan.bootloader) = plan::Regen::kPending;
    plan.ops.push_back(std::move(op));
  }
  // A boot file rebuilt takes effect at the next boot; a daemon told (the service backend) now.
  for (const plan::Op& op : plan.ops)
    if (op.kind == plan::OpKind::kRegenerate && op.backend != plan::BackendId::kService) plan.reboot_required = true;
  if (!force && !plan.conflicts.empty()) plan.ops.clear();
  return plan;
}

}  // namespace rocmtune::journal
