// The free text a plan asks the helper to keep: the intent the journal's begin record holds
// (verb, profile, keys as typed, the transaction reverted, the optional items) and the trial
// state's request, times, transaction, verdict and lines seen. status, export (Prometheus, NFD),
// history and the Ansible role take the active profile from those intents (journal::ActiveProfile),
// and `rocmtunectl trial` prints the state: a daemon that sends a plan is not trusted to name
// them, so each field is held to its format here and a profile must exist (helper/README.md,
// "What an intent may say", for what stays the sender's word).
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "helper/allow_list.h"
#include "helper/rules.h"
#include "plan/intent_names.h"
#include "plan/trial_state.h"
#include "sys/trusted_config.h"
#include "util/content_json.h"

namespace rocmtune::helper {
namespace {

constexpr std::array<std::string_view, 7> kVerbs = {"apply", "set", "unset", "revert", "reset", "reapply", "trial"};
// A trial's steps (api/trial.cc, api/trial_check.cc): args = {STEP} or {STEP, ID}.
constexpr std::array<std::string_view, 8> kTrialSteps = {"prepare", "booted", "check",  "confirm",
                                                         "fail",    "cancel", "commit", "recover"};
// Far above what a plan's intent holds (a few keys as typed), far below a journal worth reading.
constexpr size_t kMaxArgs = 256;
constexpr size_t kMaxArgBytes = 1024;

bool OneOf(std::span<const std::string_view> set, std::string_view word) {
  return std::find(set.begin(), set.end(), word) != set.end();
}

Result<void> CheckName(std::string_view name, std::string_view what) {
  if (!plan::ValidProfileName(name))
    return Refuse(rule::kIntent, fmt::format("{} \"{}\" is not a profile name (lower-case letters, digits, '-', '_', "
                                             "'.', at most 64 bytes)",
                                             what, Printable(name, 64)));
  return {};
}

}  // namespace

Result<void> CheckFreeText(std::string_view text, size_t max_bytes, std::string_view what) {
  if (text.size() > max_bytes)
    return Refuse(rule::kIntent, fmt::format("{} is {} bytes (at most {})", what, text.size(), max_bytes));
  if (!IsValidUtf8(text)) return Refuse(rule::kIntent, fmt::format("{} is not UTF-8", what));
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f)
      return Refuse(rule::kIntent, fmt::format("{} holds the control character \\x{:02x}", what, u));
  }
  return {};
}

Result<void> CheckIntent(const plan::Intent& intent) {
  if (!OneOf(kVerbs, intent.verb))
    return Refuse(rule::kIntent,
                  fmt::format("verb \"{}\" is not one of {}", Printable(intent.verb, 64), fmt::join(kVerbs, ", ")));
  const bool apply = intent.verb == "apply";
  if (apply && intent.profile.empty()) return Refuse(rule::kIntent, "an apply names no profile");
  if (!intent.profile.empty()) {
    if (!apply && intent.verb != "trial")
      return Refuse(rule::kIntent,
                    fmt::format("a {} names no profile (it names \"{}\")", intent.verb, Printable(intent.profile, 64)));
    if (auto ok = CheckName(intent.profile, "profile"); !ok) return ok;
  }
  if (intent.resets && !apply) return Refuse(rule::kIntent, "only an apply resets");
  if (!intent.with.empty() && !apply && intent.verb != "trial")
    return Refuse(rule::kIntent, fmt::format("a {} has no optional items", intent.verb));
  if (intent.with.size() > kMaxArgs) return Refuse(rule::kIntent, fmt::format("more than {} items", kMaxArgs));
  for (const std::string& item : intent.with)
    if (auto ok = CheckName(item, "optional item"); !ok) return ok;
  if (intent.verb == "revert" ? !plan::IsTransactionId(intent.reverts) : !intent.reverts.empty())
    return Refuse(rule::kIntent, fmt::format("reverts \"{}\" is not {}", Printable(intent.reverts, 64),
                                             intent.verb == "revert" ? "a transaction id" : "empty"));
  if (intent.args.size() > kMaxArgs) return Refuse(rule::kIntent, fmt::format("more than {} args", kMaxArgs));
  for (const std::string& arg : intent.args)
    if (auto ok = CheckFreeText(arg, kMaxArgBytes, "an arg"); !ok) return ok;
  if (intent.verb == "trial") {
    // {"prepare", KEYS AS TYPED...} (api/trial.cc MakeTrial), otherwise {STEP} or {STEP, ID}.
    if (intent.args.empty() || !OneOf(kTrialSteps, intent.args.front()))
      return Refuse(rule::kIntent,
                    fmt::format("a trial's first arg is its step, one of {}", fmt::join(kTrialSteps, ", ")));
    if (intent.args.front() != "prepare") {
      if (intent.args.size() > 2) return Refuse(rule::kIntent, "a trial's step has one id only");
      if (intent.args.size() == 2 && !plan::IsTrialId(intent.args[1]))
        return Refuse(rule::kIntent,
                      fmt::format("trial id \"{}\" is not 8 lowercase hex digits", Printable(intent.args[1], 64)));
    }
  }
  return {};
}

Result<void> CheckIntentProfile(const sys::Root& root, const plan::Intent& intent) {
  if (intent.profile.empty()) return {};
  if (auto ok = CheckName(intent.profile, "profile"); !ok) return ok;
  auto builtins = plan::BuiltinProfileNames();
  if (OneOf(builtins, intent.profile)) return {};
  // An admin profile: as the profile store takes it (profiles/profile_store.cc), root's own file
  // in root's own directory, or nothing (the store would not have planned it either).
  std::string rel = fmt::format("{}/{}.toml", plan::kAdminProfileDir, intent.profile);
  if (root.TypeOf(rel) != sys::EntryType::kFile)
    return Refuse(rule::kIntent, fmt::format("no profile named \"{}\": neither built in ({}) nor /{}", intent.profile,
                                             fmt::join(builtins, ", "), rel));
  if (auto trusted = sys::CheckTrustedFile(root, rel, "an admin profile is trusted only when root owns it"); !trusted)
    return Refuse(rule::kIntent, fmt::format("profile \"{}\": {}", intent.profile, trusted.error().message));
  return {};
}

}  // namespace rocmtune::helper
