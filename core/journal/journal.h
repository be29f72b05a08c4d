// The transaction journal under var/lib/rocmtune/journal/ of the root: one file per
// transaction, one JSON record per line, each line fsync'd by the helper before it goes on:
//   begin     id, time, intent, the ops with the `before` found when the helper began
//   mkdir     a directory the transaction is about to create (rollback removes it if empty)
//   rmdir     an empty directory rocmtune created earlier and is about to remove
//   done      op N is complete (file renamed and its directory synced, attribute written)
//   regen     regenerator op N: done / pending / failed
//   commit    the transaction is complete
//   rollback  the transaction was undone (after an error, or on the next start after a crash)
// A transaction with neither commit nor rollback was interrupted; the helper rolls it back
// before doing anything else. A torn last line (power cut mid-append) is ignored.
// This file only reads and interprets the journal; the helper writes it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "plan/plan.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::journal {

inline constexpr std::string_view kStateDir = "var/lib/rocmtune";
inline constexpr std::string_view kJournalDir = "var/lib/rocmtune/journal";
inline constexpr std::string_view kLockFile = "var/lib/rocmtune/lock";
// The journal's format, in every begin record ("format": N). A reader reads every format from
// the oldest up to its own and refuses a newer one (written by a newer rocmtune) by name, rather
// than misread it. Format 1: the records below, as written since the first release; its first
// journals carry no "format" at all (read as 1). A change a format-1 reader would misread bumps it.
// Format 2: a begin record may name private ops (below), whose contents are in the transaction's
// contents file. A begin record carries the oldest format that reads it: 1 without private ops,
// so that an earlier rocmtune still reads (and rolls back) every other transaction.
inline constexpr int kOldestJournalFormat = 1;
inline constexpr int kJournalFormat = 2;
// A transaction holds a few small config files; anything bigger is not ours.
inline constexpr size_t kMaxJournalFileBytes = 32 << 20;

enum class State { kCommitted, kRolledBack, kIncomplete };
std::string_view StateName(State state);

struct RegenStatus {
  size_t op = 0;
  std::string status;  // "done", "pending", "failed"
  std::string message;
};

struct Transaction {
  uint64_t number = 0;
  int format = kJournalFormat;  // as its begin record says
  std::string id;               // the number as text: what `revert ID` takes
  std::string time;             // UTC, ISO 8601
  std::string file;             // root-relative path of its journal file
  plan::Intent intent;
  std::vector<plan::Op> ops;  // `before` as found when the helper began
  bool force = false;
  std::vector<std::string> created_dirs;  // in creation order
  std::vector<std::string> removed_dirs;
  std::vector<size_t> done;
  std::vector<RegenStatus> regen;
  State state = State::kIncomplete;
  std::string rollback_reason;
  bool torn_tail = false;
  // Private ops: those of files not every user may read (no o+r, e.g. a 0600 /etc/environment,
  // an admin's 0600 modprobe.d file). Rocmtuned's group reads the journal file (0640), so it holds
  // only their metadata (path, kind, reason, sizes; a content there stands as "", an absent file
  // as null) and their before/after are in ContentsFileName, root's alone (0600 root:root).
  std::vector<size_t> private_ops;
  // This reader could not read the contents file (rocmtuned's user): the private ops' before and
  // after are unknown (ContentsKnown), only their metadata is.
  bool contents_withheld = false;
};

// Whether op `op`'s before/after are what the transaction recorded (not withheld from this reader).
bool ContentsKnown(const Transaction& txn, size_t op);
// The same for one of txn.ops by reference.
bool ContentsKnown(const Transaction& txn, const plan::Op& op);

std::string JournalFileName(uint64_t number);
// The root-only file beside it holding the private ops' contents ("000007.contents").
std::string ContentsFileName(uint64_t number);

// Records as the helper appends them (one line each, without the newline).
nlohmann::ordered_json BeginRecord(const Transaction& txn);
nlohmann::ordered_json MkdirRecord(std::string_view path);
nlohmann::ordered_json RmdirRecord(std::string_view path);
nlohmann::ordered_json DoneRecord(size_t op);
nlohmann::ordered_json RegenRecord(const RegenStatus& status);
nlohmann::ordered_json CommitRecord();
nlohmann::ordered_json RollbackRecord(std::string_view reason);
// The contents file's one record: {"record": "contents", "id", "ops": [each private op whole]}.
nlohmann::ordered_json ContentsRecord(const Transaction& txn);
// Fills the private ops of `txn` from its contents file's text: each op must be the begin
// record's (kind, path), with the content the begin record says it has (or has not).
Result<void> ApplyContents(std::string_view content, Transaction& txn, std::string_view file);

// How much of a journal file's text is whole records: all of it but a torn last line (one
// without its newline, or one that is not JSON). Readers ignore the torn line; the helper cuts
// it off before it appends to the file.
size_t IntactLength(std::string_view content);

// One journal file's text -> its transaction. Errors name the file and line; kNotFound when
// the file holds only a torn begin record (no transaction was begun).
Result<Transaction> ParseTransaction(std::string_view content, std::string_view file);

// The number for a new transaction: past every journal file, even an empty one a crash left.
Result<uint64_t> NextNumber(const sys::Root& root);

// Every transaction under the root's journal, oldest first; an absent journal is empty. A
// contents file this user may not read (EACCES: rocmtuned's user) leaves contents_withheld set;
// one missing or damaged is an error, as a damaged journal file is.
Result<std::vector<Transaction>> Load(const sys::Root& root);

}  // namespace rocmtune::journal
