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
inline constexpr int kOldestJournalFormat = 1;
inline constexpr int kJournalFormat = 1;
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
};

std::string JournalFileName(uint64_t number);

// Records as the helper appends them (one line each, without the newline).
nlohmann::ordered_json BeginRecord(const Transaction& txn);
nlohmann::ordered_json MkdirRecord(std::string_view path);
nlohmann::ordered_json RmdirRecord(std::string_view path);
nlohmann::ordered_json DoneRecord(size_t op);
nlohmann::ordered_json RegenRecord(const RegenStatus& status);
nlohmann::ordered_json CommitRecord();
nlohmann::ordered_json RollbackRecord(std::string_view reason);

// How much of a journal file's text is whole records: all of it but a torn last line (one
// without its newline, or one that is not JSON). Readers ignore the torn line; the helper cuts
// it off before it appends to the file.
size_t IntactLength(std::string_view content);

// One journal file's text -> its transaction. Errors name the file and line; kNotFound when
// the file holds only a torn begin record (no transaction was begun).
Result<Transaction> ParseTransaction(std::string_view content, std::string_view file);

// The number for a new transaction: past every journal file, even an empty one a crash left.
Result<uint64_t> NextNumber(const sys::Root& root);

// Every transaction under the root's journal, oldest first; an absent journal is empty.
Result<std::vector<Transaction>> Load(const sys::Root& root);

}  // namespace rocmtune::journal
