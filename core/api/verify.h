// `verify`: is what rocmtune configured what the system runs, and do rocmtune's files still
// hold what it wrote? Any difference makes the CLI exit 6 (rocmtunectl(1), EXIT STATUS).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "api/system.h"
#include "journal/attention.h"

namespace rocmtune::api {

// What a difference is about (rocmtunectl(1) "VERIFY"), one row each in verify.cc's table.
enum class DifferenceKind {
  kPendingReboot,
  kNotRunning,
  kDrift,
  kUnreadable,
  kSysfs,
  kProfile,
  kOverridden,
  kInterrupted,
  kPendingRegeneration,
  kLeftoverTemporary,
  kInitramfs,
};

struct DifferenceKindRow {
  DifferenceKind kind;
  std::string_view name;  // the JSON `kind`, the export's counter key and Prometheus label
  // A knob's difference (one row per knob): how telling, the highest wins the row; 0: not a knob's.
  int knob_rank;
  bool changed_by_others;                           // someone else changed what rocmtune wrote: the NFD `drift` label
  std::optional<journal::AttentionKind> attention;  // the journal's kind it reports (journal/attention.h)
};

// The table, in the order the export lists the kinds (each exported, 0 included).
std::span<const DifferenceKindRow> DifferenceKinds();
const DifferenceKindRow& Row(DifferenceKind kind);
std::string_view DifferenceKindName(DifferenceKind kind);
DifferenceKind DifferenceKindOf(journal::AttentionKind kind);

struct Difference {
  DifferenceKind kind;
  std::string subject;
  std::optional<std::string> configured, running;
  std::string message;
};

struct VerifyReport {
  std::string active_profile;  // empty when none
  std::vector<Difference> differences;
  bool ok() const { return differences.empty(); }
};

VerifyReport Verify(const System& system);

nlohmann::ordered_json VerifyJson(const VerifyReport& report);

}  // namespace rocmtune::api
