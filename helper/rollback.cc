#include "helper/rollback.h"

#include <algorithm>

#include <fmt/format.h>

#include "helper/regenerate.h"
#include "journal/revert.h"

namespace rocmtune::helper {
namespace {

bool IsFileOp(const plan::Op& op) {
  return op.kind == plan::OpKind::kWriteFile || op.kind == plan::OpKind::kRemoveFile;
}

Result<void> RestoreFile(FileWriter& writer, const plan::Op& op) {
  if (!op.before) return writer.Remove(op.path);
  // A directory the transaction removed comes back before the file inside it.
  auto missing = writer.MissingParents(op.path);
  if (!missing) return tl::unexpected(missing.error());
  for (const std::string& dir : *missing)
    if (auto made = writer.Mkdir(dir); !made) return made;
  return writer.Replace(op.path, *op.before);
}

}  // namespace

std::vector<std::string> RollBack(const sys::Root& root, FileWriter& writer, JournalWriter& journal,
                                  const journal::Transaction& txn, std::string_view reason) {
  std::vector<std::string> failures;   // I/O errors: retried by the next recovery
  std::vector<std::string> left;       // content that is neither ours nor the original
  bool restored = false;
  for (auto it = txn.ops.rbegin(); it != txn.ops.rend(); ++it) {
    const plan::Op& op = *it;
    if (IsFileOp(op)) {
      if (auto tmp = writer.RemoveTemporary(op.path); !tmp) failures.push_back(tmp.error().message);
      auto current = writer.Read(op.path);
      if (!current) {
        failures.push_back(current.error().message);
        continue;
      }
      if (*current == op.before) continue;
      if (*current != op.after) {
        left.push_back(fmt::format("{} was changed by someone else meanwhile; left as found", root.Display(op.path)));
        continue;
      }
      if (auto r = RestoreFile(writer, op); !r) failures.push_back(r.error().message);
      else restored = true;
    } else if (op.kind == plan::OpKind::kWriteSysfs && op.before) {
      if (auto r = writer.WriteAttribute(op.path, *op.before); !r) failures.push_back(r.error().message);
    }
  }
  for (auto it = txn.created_dirs.rbegin(); it != txn.created_dirs.rend(); ++it)
    if (auto r = writer.RmdirIfEmpty(*it); !r) failures.push_back(r.error().message);

  // The images were rebuilt from the new files: rebuild them from the restored ones.
  bool regenerated = std::any_of(txn.regen.begin(), txn.regen.end(), [](const auto& r) { return r.status == "done"; });
  if (root.IsLive() && (restored || regenerated)) {
    for (const plan::Op& op : txn.ops) {
      if (op.kind != plan::OpKind::kRegenerate) continue;
      auto run = RunRegenerator(journal::InverseRegenerator(op.argv));
      if (!run) failures.push_back(fmt::format("{}: {}", op.path, run.error().message));
      else if (run->exit_code != 0)
        failures.push_back(fmt::format("{} exited with {}: {}", op.path, run->exit_code, run->output));
    }
  }
  if (!failures.empty()) return failures;
  std::string why(reason);
  for (const std::string& l : left) why += "; " + l;
  if (auto r = journal.Append(journal::RollbackRecord(why)); !r) failures.push_back(r.error().message);
  failures.insert(failures.end(), left.begin(), left.end());
  return failures;
}

}  // namespace rocmtune::helper
