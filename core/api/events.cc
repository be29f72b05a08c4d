#include "api/events.h"

#include <sys/uio.h>
#include <syslog.h>
#include <systemd/sd-journal.h>

#include <array>
#include <cctype>

#include <fmt/format.h>

#include "util/text.h"

namespace rocmtune::api {
namespace {

// The ids are rocmtune's API to admins (filters, catalog, monitoring rules): never change one.
constexpr std::array<EventKindInfo, 13> kKinds{{
    {EventKind::kApplied, "applied", "31b17bd470574ca58f0e00961cc198c9", LOG_NOTICE},
    {EventKind::kReverted, "reverted", "750fae5caec34c7683792c323324af98", LOG_NOTICE},
    {EventKind::kReset, "reset", "19829599c5e5471e878cd0db056653aa", LOG_NOTICE},
    {EventKind::kRefused, "refused", "f969897a3172464b968415ceaccb55c1", LOG_WARNING},
    {EventKind::kDrift, "drift", "bd042b2937b64a3ea72d4c8976e6a800", LOG_WARNING},
    {EventKind::kRecovered, "recovered", "2462cefec7cd40b5b095504d086d274a", LOG_WARNING},
    {EventKind::kReapplied, "reapplied", "0553c49140e14b7d9ef92c1665faa279", LOG_NOTICE},
    {EventKind::kFailed, "failed", "1400cd4fce8d4773ab17a04738e97ed8", LOG_ERR},
    {EventKind::kTrialPrepared, "trial-prepared", "bcb82d6bcd6c4bf6863d55c4b8fce221", LOG_NOTICE},
    {EventKind::kTrialConfirmed, "trial-confirmed", "48f779dfb5464dd08cfe5e703f2d25c6", LOG_NOTICE},
    {EventKind::kTrialFailed, "trial-failed", "5c59c2a2a7174732b5f1996544c65dce", LOG_ERR},
    {EventKind::kTrialCommitted, "trial-committed", "0ddabde538a845e0892465b4e3566364", LOG_NOTICE},
    {EventKind::kTrialCancelled, "trial-cancelled", "0c072790b8d74cb6b82a07a62be76b57", LOG_NOTICE},
}};

constexpr bool InEnumOrder() {
  for (size_t i = 0; i < kKinds.size(); ++i)
    if (static_cast<size_t>(kKinds[i].kind) != i) return false;
  return true;
}
static_assert(InEnumOrder(), "Info(kind) indexes kKinds by the enum's value");

// journald takes far larger fields; these keep one entry readable and bounded whatever a user
// named a profile or wrote in a file a refusal quotes.
constexpr size_t kMaxValue = 1024;
constexpr size_t kMaxList = 32;  // keys, cards, reasons

// One printable line of at most kMaxValue bytes, cut at a character boundary.
std::string Clean(std::string_view raw) {
  std::string out = text::EscapeControl(raw);
  if (out.size() <= kMaxValue) return out;
  out.resize(kMaxValue);
  out.resize(out.size() - text::IncompleteUtf8Tail(out));
  return out + "...";
}

std::string Joined(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < kMaxList; ++i) out += (i ? std::string(sep) : "") + items[i];
  if (items.size() > kMaxList) out += fmt::format("{}... ({} in all)", sep, items.size());
  return out;
}

// What was asked, as the command line says it: "apply profile rdna1-safe", "set amdgpu.noretry".
std::string Request(const Event& e) {
  std::string what = e.verb.empty() ? "change" : e.verb;
  if (!e.profile.empty()) return fmt::format("{} profile {}", what, e.profile);
  if (!e.reverts.empty()) return fmt::format("{} {}", what, e.reverts);
  if (!e.knobs.empty()) return fmt::format("{} {}", what, Joined(e.knobs, " "));
  return what;
}

std::string Message(const Event& e) {
  std::string as = e.transaction.empty() ? "" : fmt::format(" as transaction {}", e.transaction);
  std::string where = e.root.empty() ? "" : fmt::format(" (in {})", e.root);
  std::string why = e.reasons.empty() ? "" : ": " + e.reasons.front();
  switch (e.kind) {
    case EventKind::kApplied: {
      // "Applied profile rdna1-safe", "Set amdgpu.noretry", "Unset cmdline.iommu".
      std::string done = Request(e);
      if (e.verb == "apply") done.replace(0, e.verb.size(), "applied");
      if (!done.empty()) done[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(done[0])));
      return fmt::format("{}{}{}", done, as, where);
    }
    case EventKind::kReverted: return fmt::format("Reverted transaction {}{}{}", e.reverts, as, where);
    case EventKind::kReset: return fmt::format("Reset everything rocmtune configured{}{}", as, where);
    case EventKind::kRefused: return fmt::format("Refused {}{}{}", Request(e), where, why);
    case EventKind::kDrift: return fmt::format("Drift found by {}{}{}", Request(e), where, why);
    case EventKind::kRecovered: return fmt::format("Rolled back interrupted transaction {}{}", e.transaction, where);
    case EventKind::kReapplied:
      return fmt::format("Re-applied runtime settings on {}{}{}", Joined(e.cards, ", "), as, where);
    case EventKind::kFailed: return fmt::format("Could not {}{}{}", Request(e), where, why);
    case EventKind::kTrialPrepared:
      return fmt::format("Prepared trial {} of {}{}{}; the next boot tries it once", e.trial, Request(e), as, where);
    case EventKind::kTrialConfirmed: return fmt::format("Trial {} passed its check{}{}", e.trial, as, where);
    case EventKind::kTrialFailed: return fmt::format("Trial {} failed{}{}{}", e.trial, as, where, why);
    case EventKind::kTrialCommitted:
      return fmt::format("Trial {} committed: {} is in effect for good{}{}", e.trial, Request(e), as, where);
    case EventKind::kTrialCancelled: return fmt::format("Trial {} cancelled{}{}", e.trial, as, where);
  }
  return Request(e);
}

}  // namespace

std::span<const EventKindInfo> EventKinds() { return kKinds; }

const EventKindInfo& Info(EventKind kind) { return kKinds[static_cast<size_t>(kind)]; }

std::vector<std::string> JournalFields(const Event& event) {
  const EventKindInfo& info = Info(event.kind);
  std::vector<std::string> fields;
  auto add = [&](std::string_view name, std::string_view value) {
    if (!value.empty()) fields.push_back(fmt::format("{}={}", name, Clean(value)));
  };
  add("MESSAGE", Message(event));
  add("MESSAGE_ID", info.message_id);
  add("PRIORITY", std::to_string(info.priority));
  add("SYSLOG_IDENTIFIER", "rocmtune");
  add("ROCMTUNE_EVENT", info.name);
  add("ROCMTUNE_VERB", event.verb);
  add("ROCMTUNE_TRANSACTION", event.transaction);
  add("ROCMTUNE_PROFILE", event.profile);
  add("ROCMTUNE_REVERTS", event.reverts);
  add("ROCMTUNE_KNOBS", Joined(event.knobs, " "));
  for (size_t i = 0; i < event.cards.size() && i < kMaxList; ++i) add("ROCMTUNE_CARD", event.cards[i]);
  for (size_t i = 0; i < event.reasons.size() && i < kMaxList; ++i) add("ROCMTUNE_REASON", event.reasons[i]);
  add("ROCMTUNE_TRIAL", event.trial);
  add("ROCMTUNE_ROOT", event.root);
  if (event.caller_uid) add("ROCMTUNE_CALLER_UID", std::to_string(*event.caller_uid));
  return fields;
}

void LogEvent(const Event& event) {
  std::vector<std::string> fields = JournalFields(event);
  std::vector<iovec> iov;
  iov.reserve(fields.size());
  for (std::string& f : fields) iov.push_back({f.data(), f.size()});
  // One iovec per field: sd_journal_sendv sends a value in the length-prefixed form when it
  // needs to, so nothing in a value is read as a field separator. Its error (no journald, a
  // full socket) is deliberately dropped: the change already happened or was already refused.
  (void)sd_journal_sendv(iov.data(), static_cast<int>(iov.size()));
}

Event ReappliedEvent(const sys::Root& root, std::string card, std::vector<std::string> knobs, std::string transaction) {
  Event e;
  e.kind = EventKind::kReapplied;
  e.verb = "reapply";
  e.transaction = std::move(transaction);
  e.knobs = std::move(knobs);
  e.cards.push_back(std::move(card));
  e.root = EventRoot(root);
  return e;
}

std::string EventRoot(const sys::Root& root) { return root.IsLive() ? "" : root.path(); }

}  // namespace rocmtune::api
