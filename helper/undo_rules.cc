// Undoing is writing too: the steps a rollback takes (after a crash, or after an error in the
// same run) come from a journal on disk, which in a --root tree belongs to whoever owns the tree.
// Each step is made into an op of its own and held to the same rules as an op of a plan; a step
// the rules refuse is reported and never carried out.
#include <algorithm>

#include <fmt/format.h>

#include "helper/allow_list.h"
#include "helper/rules.h"
#include "journal/revert.h"
#include "plan/bootc_argv.h"

namespace rocmtune::helper {

Result<plan::Op> UndoOp(const sys::Root& root, const detect::Inventory& inventory, const plan::Op& done,
                        const std::optional<std::string>& current) {
  plan::Op undo;
  undo.backend = done.backend;
  undo.path = done.path;
  undo.reason = "roll back";
  switch (done.kind) {
    case plan::OpKind::kWriteFile:
    case plan::OpKind::kRemoveFile:
      undo.kind = done.before ? plan::OpKind::kWriteFile : plan::OpKind::kRemoveFile;
      undo.before = current;
      undo.after = done.before;
      break;
    case plan::OpKind::kWriteSysfs:
      if (!done.before) return Refuse(rule::kOpShape, "no recorded value to restore");
      undo.kind = plan::OpKind::kWriteSysfs;
      // The executor recorded what the attribute's codec says puts it back, in the form the
      // kernel takes (a profile's index, never the table it reads as): the same rules hold.
      undo.after = done.before;
      break;
    case plan::OpKind::kRegenerate:
      undo.kind = plan::OpKind::kRegenerate;
      if (auto bootc = plan::InverseBootc(done)) {  // the source's options it replaced, set again
        undo.argv = bootc->argv;
        undo.before = bootc->before;
        break;
      }
      undo.argv = journal::InverseRegenerator(done.argv);
      if (undo.argv.front() != done.argv.front())  // another program (grub-editenv, systemctl): its name
        if (auto r = plan::RegeneratorOfProgram(undo.argv.front())) undo.path = std::string(plan::Name(*r));
      break;
    default: return Refuse(rule::kOpShape, "unknown op kind");
  }
  if (auto ok = CheckOp(root, inventory, undo); !ok) return tl::unexpected(ok.error());
  return undo;
}

Result<void> CheckCreatedDir(const journal::Transaction& txn, std::string_view dir) {
  if (auto ok = CheckPathSyntax(dir); !ok)
    return Fail(ok.error().code, fmt::format("a recorded directory: {}", ok.error().message));
  bool on_the_way = std::any_of(txn.ops.begin(), txn.ops.end(), [&](const plan::Op& op) {
    return (op.kind == plan::OpKind::kWriteFile || op.kind == plan::OpKind::kRemoveFile) &&
           op.path.size() > dir.size() && op.path.starts_with(dir) && op.path[dir.size()] == '/';
  });
  if (!on_the_way)
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("{}: {}: not a directory on the way to one of the transaction's files", dir,
                            rule::kPathNotAllowed));
  return {};
}

}  // namespace rocmtune::helper
