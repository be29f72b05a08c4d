// What the journal and the files beside rocmtune's writes say still needs the admin: a
// transaction that was interrupted, a regeneration that has not run, a temporary a cut-short
// write left. `verify` reports each as a difference and `status` as a finding, so neither can
// say "in effect" while one of these is true.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "journal/journal.h"
#include "sys/root.h"

namespace rocmtune::journal {

// What needs the admin, one kind each: verify's difference kind of the same name
// (api/verify.h) and status's finding `journal.<name>` (diagnose/assess.cc) come from it.
enum class AttentionKind { kInterrupted, kPendingRegeneration, kLeftoverTemporary };
std::string_view AttentionKindName(AttentionKind kind);  // "interrupted", "pending-regeneration", ...

struct Attention {
  AttentionKind kind = AttentionKind::kInterrupted;
  std::string subject;  // "transaction 3", the regenerator's name, the temporary's path ("/etc/...")
  std::string message;  // what happened and what to run
};

// The command line that asks for `txn` again ("rocmtunectl set amdgpu.noretry=0").
std::string RequestCommand(const Transaction& txn);

// Transactions with a begin record but neither commit nor rollback (a helper killed mid-apply).
// The next change rolls each back before it plans, so running the interrupted request again
// (RequestCommand) rolls it back and then makes that change whole.
// `writer_running` (LastIsRunning): the last transaction, if incomplete, is being written now and
// is not reported.
std::vector<Attention> Interrupted(const std::vector<Transaction>& txns, bool writer_running = false);

// Regenerators that committed transactions left "pending" (a --root tree) or "failed", and not
// seen to have run since: one difference per regenerator, naming the transactions and the command.
// Seen to have run: a later committed transaction ran it ("done"), or a file it writes
// (plan::RegeneratorRow::artifacts) was modified after the transaction's journal file was last
// written (its commit). Nothing is pending when the transactions left every file they wrote as
// they found it (a change and its revert). grubby edits by arguments, so each of its ops counts
// alone. Limits: an mtime is only evidence (touch(1), a kernel update's rebuild or a clock set
// back count as a run); without any such file it stays pending.
std::vector<Attention> PendingRegenerations(const sys::Root& root, const std::vector<Transaction>& txns);

// `.NAME.rocmtune-new` (plan::TemporaryName) beside any file a transaction wrote or removed.
std::vector<Attention> LeftoverTemporaries(const sys::Root& root, const std::vector<Transaction>& txns);

// All three, in that order (interrupted ones as LastIsRunning says): what verify and status report.
std::vector<Attention> NeedsAttention(const sys::Root& root, const std::vector<Transaction>& txns);

}  // namespace rocmtune::journal
