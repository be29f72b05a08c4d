// Undoing is writing too: the steps a rollback takes (after a crash, or after an error in the
// same run) come from a journal on disk, which in a --root tree belongs to whoever owns the tree.
// Each step is made into an op of its own and held to the same rules as an op of a plan; a step
// the rules refuse is reported and never carried out.
#include <algorithm>

#include <fmt/format.h>

#include "helper/allow_list.h"
#include "helper/rules.h"
#include "journal/revert.h"
#include "knobs/sysfs_backend.h"

namespace rocmtune::helper {
namespace {

// A world stands in for sysfs with plain files, so the "previous value" of a table-valued
// attribute is the table as it read (a live device records the selected index instead; see
// executor.cc). Only on a tree that is not the running system, and only a table the backend
// itself would parse.
bool IsWorldTable(const sys::Root& root, const plan::Op& undo) {
  if (root.IsLive() || !undo.after || !undo.path.ends_with("/pp_power_profile_mode")) return false;
  if (undo.after->size() > 64 * 1024 || undo.after->find('\0') != std::string::npos) return false;
  return !knobs::ParsePowerProfiles(*undo.after).empty();
}

}  // namespace

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
      undo.after = done.before;
      if (IsWorldTable(root, undo)) {
        if (auto ok = CheckSysfsTarget(root, inventory, undo); !ok)
          return Fail(ok.error().code, fmt::format("a recorded attribute: {}", ok.error().message));
        return undo;
      }
      break;
    case plan::OpKind::kRegenerate:
      undo.kind = plan::OpKind::kRegenerate;
      undo.argv = journal::InverseRegenerator(done.argv);
      break;
    default:
      return Refuse(rule::kOpShape, "unknown op kind");
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
