#include "knobs/kernel_rules.h"

#include <algorithm>
#include <iterator>

namespace rocmtune::knobs {
namespace {

std::optional<KernelMinor> ParseMinor(std::string_view text) {
  return KernelVersion(std::optional<std::string>(std::string(text)));
}

// One row: for GC versions lo..hi (inclusive) and kernels [from, until) the auto default is
// `value`; nullopt value: not known there. Rows are tried in order, the first match wins.
struct NoretryRow {
  GcVersion lo, hi;
  std::optional<KernelMinor> from, until;
  std::optional<int> value;
};

// amdgpu_gmc_noretry_set() in the kernels named:
//  - GC 9.0.1, 9.4.0-9.4.4, 9.5.0 and >= 10.3.0: retry disabled (1) in every kernel rocmtune models.
//  - GC 10.1.x (Navi1x): 0 until e47b0056a08d moved the threshold from 10.3.0 to 10.1.0 (mainline 7.1;
//    backported to 6.18.y and 7.0.y from a point release, so those series are unknown).
//  - GC 9.3.0 (Renoir): 0 from 6.11; earlier kernels treated it differently (not verified here).
//  - every other GC: 0.
constexpr NoretryRow kNoretryRows[] = {
    {{9, 0, 1}, {9, 0, 1}, std::nullopt, std::nullopt, 1},
    {{9, 4, 0}, {9, 4, 4}, std::nullopt, std::nullopt, 1},
    {{9, 5, 0}, {9, 5, 0}, std::nullopt, std::nullopt, 1},
    {{10, 3, 0}, {255, 255, 255}, std::nullopt, std::nullopt, 1},
    {{10, 1, 0}, {10, 1, 255}, std::nullopt, KernelMinor{6, 18}, 0},
    {{10, 1, 0}, {10, 1, 255}, KernelMinor{7, 1}, std::nullopt, 1},
    {{10, 1, 0}, {10, 1, 255}, std::nullopt, std::nullopt, std::nullopt},
    {{9, 3, 0}, {9, 3, 0}, KernelMinor{6, 11}, std::nullopt, 0},
    {{9, 3, 0}, {9, 3, 0}, std::nullopt, std::nullopt, std::nullopt},
    {{0, 0, 0}, {255, 255, 255}, std::nullopt, std::nullopt, 0},
};

}  // namespace

Verdict Taints(const knowledge::ModuleParam& param, const std::optional<std::string>& kernel_release) {
  if (!param.taints) return Verdict::kNo;
  if (!param.taints_since) return Verdict::kYes;
  auto since = ParseMinor(*param.taints_since);
  auto kernel = KernelVersion(kernel_release);
  if (!since || !kernel) return Verdict::kUnknown;
  return *kernel >= *since ? Verdict::kYes : Verdict::kNo;
}

std::optional<int> NoretryAutoDefault(const GcVersion& gc, const std::optional<KernelMinor>& kernel) {
  for (const NoretryRow& row : kNoretryRows) {
    if (gc < row.lo || gc > row.hi) continue;
    bool bounded = row.from || row.until;
    if (bounded && !kernel) continue;  // a version-bound row needs the version: fall to the unknown row
    if (row.from && *kernel < *row.from) continue;
    if (row.until && *kernel >= *row.until) continue;
    return row.value;
  }
  return std::nullopt;
}

std::optional<LockupTimeouts> LockupTimeoutDefaults(const std::optional<KernelMinor>& kernel) {
  if (!kernel || *kernel < KernelMinor{6, 11}) return std::nullopt;
  if (*kernel < KernelMinor{6, 17}) return LockupTimeouts{10000, 60000, 10000, 10000, false};  // before ec8fbb44b51e
  if (*kernel < KernelMinor{6, 19}) return LockupTimeouts{10000, 10000, 10000, 10000, false};  // ec8fbb44b51e
  return LockupTimeouts{2000, 2000, 2000, 2000, true};                                         // 1bea57ea7544
}

}  // namespace rocmtune::knobs
