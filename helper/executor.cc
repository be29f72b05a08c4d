#include "helper/executor.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "detect/inventory.h"
#include "helper/allow_list.h"
#include "helper/file_writer.h"
#include "helper/journal_writer.h"
#include "helper/lock.h"
#include "helper/regenerate.h"
#include "helper/rollback.h"
#include "journal/history.h"
#include "knobs/registry.h"
#include "knobs/sysfs_attributes.h"
#include "plan/owned_paths.h"

namespace rocmtune::helper {
namespace {

std::string NowUtc() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                     fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
}

Outcome Failed(Status status, std::string message) {
  Outcome out;
  out.status = status;
  out.messages.push_back(std::move(message));
  return out;
}

// What to write back to an attribute to undo our write: what its codec says puts back what it
// reads now, in the form the kernel takes (the same on a world's plain file as on a device).
Result<std::string> AttributeRestoreValue(const sys::Root& root, FileWriter& writer, const plan::Op& op) {
  const knobs::SysfsAttribute* attr = knobs::FindSysfsAttributeOfPath(op.path);
  if (!attr)
    return Fail(ErrorCode::kInvalidArgument, fmt::format("{}: not a managed attribute", root.Display(op.path)));
  auto raw = writer.ReadAttribute(op.path);
  if (!raw) return tl::unexpected(raw.error());
  if (auto restore = attr->codec->Restorable(*raw)) return *restore;
  return Fail(ErrorCode::kInvalidData,
              fmt::format("{} reads {}, which rocmtune could not write back; nothing was changed",
                          root.Display(op.path), attr->codec->Current(*raw).value_or("no value it can name")));
}

// Every `before` must still be true, and a file rocmtune owns must hold what rocmtune last
// wrote there (else it is drift: someone else's edit, not to be overwritten unless forced).
std::vector<std::string> CheckBefore(const sys::Root& root, FileWriter& writer,
                                     const std::vector<journal::Transaction>& txns, std::vector<plan::Op>& ops,
                                     bool force, std::vector<std::string>& failures) {
  std::vector<std::string> conflicts;
  std::set<std::string> seen;
  for (plan::Op& op : ops) {
    if (op.kind == plan::OpKind::kRegenerate) continue;
    if (!seen.insert(op.path).second) {
      failures.push_back(fmt::format("{} appears twice in the plan", root.Display(op.path)));
      continue;
    }
    if (op.kind == plan::OpKind::kWriteSysfs) {
      auto restore = AttributeRestoreValue(root, writer, op);
      if (!restore) failures.push_back(restore.error().message);
      else op.before = std::move(*restore);
      continue;
    }
    auto current = writer.Read(op.path);
    if (!current) {
      failures.push_back(fmt::format("{}; nothing was changed", current.error().message));
      continue;
    }
    if (*current != op.before) {
      conflicts.push_back(fmt::format("{} changed since the plan was made; plan again", root.Display(op.path)));
      continue;
    }
    if (force || !plan::IsOwnedFile(op.path)) continue;
    if (journal::IsDrift(txns, op.path, *current))
      conflicts.push_back(
          fmt::format("{} was edited by someone else since rocmtune wrote it (drift); "
                      "see the diff with `rocmtunectl verify`, or use --force to overwrite",
                      root.Display(op.path)));
  }
  return conflicts;
}

// The file ops whose file not every user may read (no o+r): their contents stay out of the
// journal file rocmtuned's group reads (journal.h, Transaction::private_ops). A file that is not
// there yet is made 0644 (FileWriter) and one that cannot be examined counts as private.
std::vector<size_t> PrivateOps(const sys::Root& root, const std::vector<plan::Op>& ops) {
  std::vector<size_t> out;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind != plan::OpKind::kWriteFile && ops[i].kind != plan::OpKind::kRemoveFile) continue;
    if (!ops[i].before) continue;
    auto fd = root.Open(ops[i].path, O_PATH);
    struct stat st {};
    if (!fd || ::fstat(fd->get(), &st) != 0 || (st.st_mode & S_IROTH) == 0) out.push_back(i);
  }
  return out;
}

}  // namespace

Result<std::vector<std::string>> Executor::RecoverLocked(std::vector<journal::Transaction>& txns,
                                                         std::vector<std::string>& notes) {
  std::vector<std::string> recovered;
  FileWriter writer(root_, hook_);
  std::optional<detect::Inventory> inventory;
  for (journal::Transaction& txn : txns) {
    if (txn.state != journal::State::kIncomplete) continue;
    if (!inventory) inventory = detect::Detect(root_);
    auto journal = JournalWriter::Reopen(root_, hook_, txn.file);
    if (!journal) return tl::unexpected(journal.error());
    RollbackReport report =
        RollBack(root_, *inventory, writer, *journal, txn, "interrupted; rolled back on the next start");
    if (!report.failures.empty()) {
      std::string all;
      for (const auto& p : report.failures) all += (all.empty() ? "" : "; ") + p;
      return Fail(ErrorCode::kIo, fmt::format("rolling back interrupted transaction {}: {}", txn.id, all));
    }
    for (const std::string& l : report.left) notes.push_back(fmt::format("rolling back transaction {}: {}", txn.id, l));
    txn.state = journal::State::kRolledBack;
    recovered.push_back(txn.id);
  }
  return recovered;
}

Outcome Executor::Recover(const Options& options) {
  auto lock = WriterLock::Acquire(root_, hook_, options.wait);
  if (!lock) return Failed(options.wait ? Status::kFailed : Status::kBusy, lock.error().message);
  auto txns = journal::Load(root_);
  if (!txns) return Failed(Status::kFailed, txns.error().message);
  std::vector<std::string> notes;
  auto recovered = RecoverLocked(*txns, notes);
  if (!recovered) return Failed(Status::kFailed, recovered.error().message);
  Outcome out;
  out.status = Status::kUnchanged;
  out.recovered = std::move(*recovered);
  out.messages = std::move(notes);
  return out;
}

Outcome Executor::Run(const plan::Plan& plan, const Options& options) {
  auto lock = WriterLock::Acquire(root_, hook_, options.wait);
  if (!lock) return Failed(options.wait ? Status::kFailed : Status::kBusy, lock.error().message);
  auto txns = journal::Load(root_);
  if (!txns) return Failed(Status::kFailed, txns.error().message);
  std::vector<std::string> notes;
  auto recovered = RecoverLocked(*txns, notes);
  if (!recovered) return Failed(Status::kFailed, recovered.error().message);
  Outcome out = RunLocked(plan, options, *txns);
  out.recovered = std::move(*recovered);
  out.messages.insert(out.messages.begin(), notes.begin(), notes.end());
  return out;
}

Outcome Executor::RunLocked(const plan::Plan& plan, const Options& options, std::vector<journal::Transaction>& txns) {
  if (!plan.refused.empty()) return Failed(Status::kRefused, "the plan carries refusals; nothing was changed");
  // An apply or a revert with nothing to write is recorded (an empty transaction) when its plan
  // asks: the apply makes its profile the active one, the revert marks what it undoes as
  // reverted, so `revert last` goes on to the one before (journal/history.h).
  if (!plan::WillRecord(plan)) {
    Outcome out;
    out.status = Status::kUnchanged;
    return out;
  }
  // A plan is made for one directory; a path that names another one by now (a --root whose
  // parent someone else owns, pointed elsewhere between the plan and this run) is not it.
  if (!plan.root)
    return Failed(Status::kRefused, "the plan does not name the root it was made for; nothing was changed");
  if (*plan.root != root_.id())
    return Failed(Status::kRefused,
                  fmt::format("the plan was made for another directory than {} (device {}, inode {}; the plan says "
                              "device {}, inode {}): was the path pointed elsewhere? Plan again; nothing was changed",
                              root_.path(), root_.id().dev, root_.id().ino, plan.root->dev, plan.root->ino));
  detect::Inventory inventory = detect::Detect(root_);
  auto violations = CheckPlan(root_, inventory, plan);
  if (!violations.empty()) {
    Outcome out;
    out.status = Status::kRefused;
    for (const Error& e : violations) out.messages.push_back(e.message);
    return out;
  }

  FileWriter writer(root_, hook_);
  journal::Transaction txn;
  txn.ops = plan.ops;
  std::vector<std::string> failures;
  auto conflicts = CheckBefore(root_, writer, txns, txn.ops, options.force, failures);
  if (!failures.empty()) {
    Outcome out;
    out.status = Status::kFailed;
    out.messages = std::move(failures);
    return out;
  }
  if (!conflicts.empty()) {
    Outcome out;
    out.status = Status::kConflict;
    out.messages = std::move(conflicts);
    return out;
  }

  auto number = journal::NextNumber(root_);
  if (!number) return Failed(Status::kFailed, number.error().message);
  txn.number = *number;
  txn.id = std::to_string(txn.number);
  txn.time = NowUtc();
  txn.intent = plan.intent;
  txn.force = options.force;
  txn.private_ops = PrivateOps(root_, txn.ops);
  auto journal = JournalWriter::Create(root_, hook_, txn.number);
  if (!journal) return Failed(Status::kFailed, journal.error().message);
  Outcome out;
  out.transaction = txn.id;
  if (!txn.private_ops.empty())
    if (auto kept = journal->WriteContents(journal::ContentsRecord(txn), txn.number); !kept) {
      out.status = Status::kFailed;
      out.messages.push_back(fmt::format("{}; nothing was changed", kept.error().message));
      return out;
    }
  // Without its begin record the transaction has not begun: nothing to undo. A rollback record
  // would be the first line of the file, and a journal that does not start with "begin" is
  // unreadable: every later run would fail on it.
  if (auto begun = journal->Append(journal::BeginRecord(txn)); !begun) {
    out.status = Status::kFailed;
    out.messages.push_back(fmt::format("{}; nothing was changed", begun.error().message));
    return out;
  }

  const auto owned_dirs = journal::CreatedDirs(txns);
  auto step = [&](size_t i) -> Result<void> {
    const plan::Op& op = txn.ops[i];
    switch (op.kind) {
      case plan::OpKind::kWriteFile: {
        auto missing = writer.MissingParents(op.path);
        if (!missing) return tl::unexpected(missing.error());
        for (const std::string& dir : *missing) {
          if (auto r = journal->Append(journal::MkdirRecord(dir)); !r) return r;
          txn.created_dirs.push_back(dir);
          if (auto r = writer.Mkdir(dir); !r) return r;
        }
        if (auto r = writer.Replace(op.path, *op.after); !r) return r;
        break;
      }
      case plan::OpKind::kRemoveFile: {
        if (auto r = writer.Remove(op.path); !r) return r;
        // Directories rocmtune made for its files go with the last of them.
        for (std::string_view dir = ParentOf(op.path); !dir.empty(); dir = ParentOf(dir)) {
          if (std::find(owned_dirs.begin(), owned_dirs.end(), dir) == owned_dirs.end()) break;
          auto entries = root_.ListDir(dir);
          if (!entries || !entries->empty()) break;
          if (auto r = journal->Append(journal::RmdirRecord(dir)); !r) return r;
          txn.removed_dirs.emplace_back(dir);
          auto removed = writer.RmdirIfEmpty(dir);
          if (!removed) return tl::unexpected(removed.error());
        }
        break;
      }
      case plan::OpKind::kWriteSysfs:
        if (auto r = writer.WriteAttribute(op.path, *op.after); !r) return r;
        break;
      case plan::OpKind::kRegenerate: {
        journal::RegenStatus status{i, "pending", "the root is not the running system; run it there"};
        if (root_.IsLive()) {
          if (auto h = hook_.Before(Step::kRegenerate, op.path); !h) return h;
          auto run = RunRegenerator(op.argv);
          if (!run) return tl::unexpected(run.error());
          if (run->exit_code != 0)
            return Fail(ErrorCode::kIo, fmt::format("{} exited with {}: {}", op.argv[0], run->exit_code, run->output));
          status = {i, "done", ""};
        }
        txn.regen.push_back(status);
        if (op.backend != plan::BackendId::kService)  // a daemon told, not a boot file rebuilt
          (op.backend == plan::BackendId::kInitramfs ? out.initramfs : out.bootloader) =
              status.status == "done" ? plan::Regen::kDone : plan::Regen::kPending;
        return journal->Append(journal::RegenRecord(status));
      }
    }
    txn.done.push_back(i);
    return journal->Append(journal::DoneRecord(i));
  };

  for (size_t i = 0; i < txn.ops.size(); ++i) {
    if (auto r = step(i); !r) {
      out.status = Status::kFailed;
      out.messages.push_back(r.error().message);
      RollbackReport report = RollBack(root_, inventory, writer, *journal, txn, r.error().message);
      if (report.failures.empty() && report.left.empty())
        out.messages.push_back(fmt::format("transaction {} was rolled back; nothing changed", txn.id));
      for (auto& p : report.failures) out.messages.push_back("rollback: " + p);
      for (auto& p : report.left) out.messages.push_back("rollback: " + p);
      out.initramfs = out.bootloader = plan::Regen::kNo;
      return out;
    }
  }
  if (auto r = journal->Append(journal::CommitRecord()); !r) {
    out.status = Status::kFailed;
    out.messages.push_back(r.error().message);
    (void)RollBack(root_, inventory, writer, *journal, txn, r.error().message);
    return out;
  }
  out.status = Status::kCommitted;
  return out;
}

}  // namespace rocmtune::helper
