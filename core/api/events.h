// What an admin finds in the system journal: every change rocmtune made, undid or would not make
// is one structured entry, with a MESSAGE_ID per kind that catalog/rocmtune.catalog explains
// (`journalctl -x`) and fields to filter on (`journalctl ROCMTUNE_TRANSACTION=12`,
// `journalctl MESSAGE_ID=...`). The one log sink of the core: the front ends cannot all be trusted
// to log the same change the same way, and the change path (change.cc) is where it is decided.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sys/root.h"

namespace rocmtune::api {

enum class EventKind {
  kApplied,    // apply, set or unset committed a transaction
  kReverted,   // revert committed a transaction undoing another
  kReset,      // reset committed: everything of rocmtune's back to stock
  kRefused,    // a change was not made: refused plan, drift without --force, no authorization
  kDrift,      // a file rocmtune owns was edited by someone else
  kRecovered,  // an interrupted transaction was rolled back
  kReapplied,  // runtime settings written again (boot, hotplug, GPU reset)
  kFailed,     // the writer could not make the change (nothing of it is in effect)
  // Trial boots (`--trial`, api/trial.h), each a journaled transaction of the trial's state.
  kTrialPrepared,   // the trial entry and the one-shot switch are written; the next boot tries it
  kTrialConfirmed,  // the trial boot's check passed
  kTrialFailed,     // the check failed, or a boot came without the trial (panic, hang, power cycle)
  kTrialCommitted,  // the tried change was applied for good and the trial entry removed
  kTrialCancelled,  // trial cancel or reset dropped a trial
};

struct EventKindInfo {
  EventKind kind;
  std::string_view name;        // "applied": ROCMTUNE_EVENT=
  std::string_view message_id;  // 32 hex digits, as in the catalog; made once with systemd-id128 new
  int priority;                 // syslog priority (LOG_NOTICE, LOG_WARNING, LOG_ERR)
};

// Every kind, in enum order; tests compare these ids with the catalog's.
std::span<const EventKindInfo> EventKinds();
const EventKindInfo& Info(EventKind kind);

struct Event {
  EventKind kind = EventKind::kApplied;
  std::string verb;                    // what was asked: apply, set, unset, revert, reset, reapply
  std::string transaction;             // the transaction made, undone or rolled back; empty: none
  std::string profile;                 // apply: the profile
  std::string reverts;                 // revert: the transaction it undoes
  std::vector<std::string> knobs;      // the keys concerned (`amdgpu.noretry`), never their values
  std::vector<std::string> cards;      // the GPUs concerned (`card0`, `0000:03:00.0`, `all`)
  std::vector<std::string> reasons;    // refused/drift: what the result document says
  std::string root;                    // the root's path when it is not "/"
  std::optional<uint32_t> caller_uid;  // who asked, when a front end knows (the daemon)
  std::string trial;                   // trial events: the trial's id (ROCMTUNE_TRIAL)
};

// The entry as "FIELD=value" strings, one per journal field (a field may repeat: ROCMTUNE_CARD,
// ROCMTUNE_REASON). Values come from users (profile names, keys, refusal texts quoting files):
// control characters are escaped and each value is capped, so a value is one printable line and
// never another field.
std::vector<std::string> JournalFields(const Event& event);

// Sends the entry to journald (sd_journal_sendv). Never fails the change: without a journal
// (a container, a chroot, a build machine) nothing happens.
void LogEvent(const Event& event);

// A re-apply (boot, hotplug, GPU reset) that goes through CarryOut with the intent verb
// "reapply" is logged as kReapplied by itself; code that writes otherwise logs this: one
// kReapplied entry for `card`, with the keys written again and the transaction, if one was made.
Event ReappliedEvent(const sys::Root& root, std::string card, std::vector<std::string> knobs, std::string transaction);

// Event::root for `root`: its path, or empty for "/".
std::string EventRoot(const sys::Root& root);

}  // namespace rocmtune::api
