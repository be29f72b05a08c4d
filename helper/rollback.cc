#include "helper/rollback.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "helper/allow_list.h"
#include "helper/regenerate.h"

namespace rocmtune::helper {
namespace {

bool IsFileOp(const plan::Op& op) {
  return op.kind == plan::OpKind::kWriteFile || op.kind == plan::OpKind::kRemoveFile;
}

Result<void> RestoreFile(FileWriter& writer, const plan::Op& undo) {
  if (undo.kind == plan::OpKind::kRemoveFile) return writer.Remove(undo.path);
  // A directory the transaction removed comes back before the file inside it.
  auto missing = writer.MissingParents(undo.path);
  if (!missing) return tl::unexpected(missing.error());
  for (const std::string& dir : *missing)
    if (auto made = writer.Mkdir(dir); !made) return made;
  return writer.Replace(undo.path, *undo.after);
}

std::string Refused(const Error& e) { return fmt::format("not undone, refused by the allow-list: {}", e.message); }

}  // namespace

RollbackReport RollBack(const sys::Root& root, const detect::Inventory& inventory, FileWriter& writer,
                        JournalWriter& journal, const journal::Transaction& txn, std::string_view reason) {
  RollbackReport report;
  bool restored = false;
  for (auto it = txn.ops.rbegin(); it != txn.ops.rend(); ++it) {
    const plan::Op& op = *it;
    if (IsFileOp(op)) {
      // The path first: only a file a plan may name is read, and only beside it a temporary removed.
      if (auto target = CheckFileTarget(op); !target) {
        report.left.push_back(Refused(target.error()));
        continue;
      }
      if (auto tmp = writer.RemoveTemporary(op.path); !tmp) report.failures.push_back(tmp.error().message);
      auto current = writer.Read(op.path);
      if (!current) {
        report.failures.push_back(current.error().message);
        continue;
      }
      if (*current == op.before) continue;
      if (*current != op.after) {
        report.left.push_back(
            fmt::format("{} was changed by someone else meanwhile; left as found", root.Display(op.path)));
        continue;
      }
      auto undo = UndoOp(root, inventory, op, *current);
      if (!undo) {
        report.left.push_back(Refused(undo.error()));
        continue;
      }
      if (auto r = RestoreFile(writer, *undo); !r) report.failures.push_back(r.error().message);
      else restored = true;
    } else if (op.kind == plan::OpKind::kWriteSysfs && op.before) {
      auto undo = UndoOp(root, inventory, op, std::nullopt);
      if (!undo) report.left.push_back(Refused(undo.error()));
      else if (auto r = writer.WriteAttribute(undo->path, *undo->after); !r)
        report.failures.push_back(r.error().message);
    }
  }
  for (auto it = txn.created_dirs.rbegin(); it != txn.created_dirs.rend(); ++it) {
    if (auto ok = CheckCreatedDir(txn, *it); !ok) report.left.push_back(Refused(ok.error()));
    else if (auto r = writer.RmdirIfEmpty(*it); !r) report.failures.push_back(r.error().message);
  }

  // The images were rebuilt from the new files: rebuild them from the restored ones.
  bool regenerated = std::any_of(txn.regen.begin(), txn.regen.end(), [](const auto& r) { return r.status == "done"; });
  if (root.IsLive() && (restored || regenerated)) {
    for (const plan::Op& op : txn.ops) {
      if (op.kind != plan::OpKind::kRegenerate) continue;
      auto undo = UndoOp(root, inventory, op, std::nullopt);
      if (!undo) {
        report.left.push_back(Refused(undo.error()));
        continue;
      }
      auto run = RunRegenerator(undo->argv);
      if (!run) report.failures.push_back(fmt::format("{}: {}", op.path, run.error().message));
      else if (run->exit_code != 0)
        report.failures.push_back(fmt::format("{} exited with {}: {}", op.path, run->exit_code, run->output));
    }
  }
  if (!report.failures.empty()) return report;
  std::string why(reason);
  for (const std::string& l : report.left) why += "; " + l;
  if (auto r = journal.Append(journal::RollbackRecord(why)); !r) report.failures.push_back(r.error().message);
  return report;
}

}  // namespace rocmtune::helper
