#include "journal/history.h"

#include <algorithm>

namespace rocmtune::journal {

const Transaction* Find(const std::vector<Transaction>& txns, std::string_view id) {
  for (const Transaction& t : txns)
    if (t.id == id) return &t;
  return nullptr;
}

bool IsReverted(const std::vector<Transaction>& txns, const Transaction& txn) {
  // Reverts always come later, so the recursion ends.
  for (const Transaction& t : txns)
    if (t.number > txn.number && t.state == State::kCommitted && t.intent.verb == "revert" &&
        t.intent.reverts == txn.id && !IsReverted(txns, t))
      return true;
  return false;
}

namespace {

// The revert that undid `txn` and is not undone itself; empty when none.
std::string RevertedBy(const std::vector<Transaction>& txns, const Transaction& txn) {
  for (const Transaction& t : txns)
    if (t.number > txn.number && t.state == State::kCommitted && t.intent.verb == "revert" &&
        t.intent.reverts == txn.id && !IsReverted(txns, t))
      return t.id;
  return "";
}

// The first later transaction, committed and not reverted, that replaces `txn` as a whole: a
// reset (or an apply of a resetting profile such as stock) ends everything before it; another
// apply ends an apply.
std::string SupersededBy(const std::vector<Transaction>& txns, const Transaction& txn) {
  for (const Transaction& t : txns) {
    if (t.number <= txn.number || t.state != State::kCommitted || IsReverted(txns, t)) continue;
    if (t.intent.verb == "reset" || (t.intent.verb == "apply" && (t.intent.resets || txn.intent.verb == "apply")))
      return t.id;
  }
  return "";
}

}  // namespace

std::vector<Effect> Effects(const std::vector<Transaction>& txns) {
  std::vector<Effect> out;
  out.reserve(txns.size());
  for (const Transaction& t : txns) {
    Effect e;
    if (t.state == State::kCommitted) {
      e.reverted_by = RevertedBy(txns, t);
      if (e.reverted_by.empty()) e.superseded_by = SupersededBy(txns, t);
      e.in_effect = e.reverted_by.empty() && e.superseded_by.empty();
    }
    out.push_back(std::move(e));
  }
  return out;
}

const Transaction* LastRevertible(const std::vector<Transaction>& txns) {
  std::vector<Effect> effects = Effects(txns);
  for (size_t i = txns.size(); i-- > 0;)
    if (effects[i].in_effect && txns[i].intent.verb != "revert" && txns[i].intent.verb != "reapply") return &txns[i];
  return nullptr;
}

std::optional<std::optional<std::string>> LastWritten(const std::vector<Transaction>& txns, std::string_view path) {
  for (auto it = txns.rbegin(); it != txns.rend(); ++it) {
    if (it->state != State::kCommitted) continue;
    for (auto op = it->ops.rbegin(); op != it->ops.rend(); ++op)
      if ((op->kind == plan::OpKind::kWriteFile || op->kind == plan::OpKind::kRemoveFile) && op->path == path)
        return op->after;
  }
  return std::nullopt;
}

bool IsDrift(const std::vector<Transaction>& txns, std::string_view path, const std::optional<std::string>& current) {
  // What rocmtune last wrote there is withheld from this reader (a private file, journal.h): it
  // cannot tell, and says no drift rather than one it cannot show.
  for (auto it = txns.rbegin(); it != txns.rend(); ++it) {
    if (it->state != State::kCommitted) continue;
    auto op = std::find_if(it->ops.rbegin(), it->ops.rend(), [&](const plan::Op& o) {
      return (o.kind == plan::OpKind::kWriteFile || o.kind == plan::OpKind::kRemoveFile) && o.path == path;
    });
    if (op == it->ops.rend()) continue;
    if (!ContentsKnown(*it, *op)) return false;
    break;
  }
  auto written = LastWritten(txns, path);
  return written ? *written != current : current.has_value();
}

std::optional<std::string> FinishedContent(const std::vector<Transaction>& txns, std::string_view path,
                                           std::string current) {
  if (txns.empty() || txns.back().state != State::kIncomplete) return current;
  for (const plan::Op& op : txns.back().ops)
    if (op.path == path && ContentsKnown(txns.back(), op) && op.after == current) return op.before;
  return current;
}

std::vector<std::string> CreatedDirs(const std::vector<Transaction>& txns) {
  std::vector<std::string> dirs;
  for (const Transaction& t : txns) {
    if (t.state != State::kCommitted) continue;
    for (const std::string& d : t.created_dirs)
      if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
    for (const std::string& d : t.removed_dirs) std::erase(dirs, d);
  }
  return dirs;
}

const Transaction* ActiveApply(const std::vector<Transaction>& txns) {
  std::vector<Effect> effects = Effects(txns);
  for (size_t i = txns.size(); i-- > 0;)
    if (effects[i].in_effect && txns[i].intent.verb == "apply") return &txns[i];
  return nullptr;
}

std::string ActiveProfile(const std::vector<Transaction>& txns) {
  const Transaction* apply = ActiveApply(txns);
  return apply ? apply->intent.profile : "";
}

}  // namespace rocmtune::journal
