// The helper's one rule for an admin's file (helper/admin_line_rules.cc, CheckAdminLineEdit): a
// plan may only turn one line into its commented form, or put rocmtune's commented lines back.
// Input: a kind byte (list, shell, modprobe), a line-number byte, then BEFORE fuzz::kSeparator AFTER.
// Invariants, checked with this file's own line splitting: an accepted edit keeps the number of
// lines and every byte of every line but the changed ones; a line that changed is either the
// before line with the kind's mark in front (one line only) or a marked line put back; and when
// commenting out line N of BEFORE is accepted, putting it back is accepted too (else a revert or
// a rollback of an edit the helper made would be refused).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "helper/rules.h"
#include "plan/admin_lines.h"

using namespace rocmtune;

namespace {

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string_view::npos; start = nl + 1)
    out.push_back(text.substr(start, nl - start));
  out.push_back(text.substr(start));
  return out;
}

// Aborts unless `before` -> `after` is one line commented out or marked lines put back.
void CheckAccepted(plan::AdminLineFile kind, std::string_view before, std::string_view after) {
  const std::string_view mark = plan::MarkOf(kind);
  std::vector<std::string_view> b = Lines(before), a = Lines(after);
  if (b.size() != a.size()) __builtin_trap();
  size_t commented = 0, restored = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    if (b[i] == a[i]) continue;
    if (a[i].size() == mark.size() + b[i].size() && a[i].starts_with(mark) && a[i].substr(mark.size()) == b[i])
      ++commented;
    else if (b[i].size() == mark.size() + a[i].size() && b[i].starts_with(mark) && b[i].substr(mark.size()) == a[i])
      ++restored;
    else __builtin_trap();
  }
  if (commented + restored == 0 || (commented > 0 && (commented != 1 || restored != 0))) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  constexpr plan::AdminLineFile kKinds[] = {plan::AdminLineFile::kEnvList, plan::AdminLineFile::kEnvShell,
                                            plan::AdminLineFile::kModprobe};
  const plan::AdminLineFile kind = kKinds[data[0] % 3];
  const size_t number = data[1];
  auto parts = fuzz::SplitInput(fuzz::AsText(data + 2, size - 2), 2);
  const std::string_view before = parts[0];
  if (parts.size() > 1 && helper::CheckAdminLineEdit(kind, before, parts[1])) CheckAccepted(kind, before, parts[1]);

  // Line `number` of BEFORE commented out, as the planner would; and back.
  std::vector<std::string_view> lines = Lines(before);
  if (number >= lines.size()) return 0;
  std::string after;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i) after += '\n';
    after += i == number ? plan::CommentOut(kind, lines[i]) : std::string(lines[i]);
  }
  if (!helper::CheckAdminLineEdit(kind, before, after)) return 0;
  CheckAccepted(kind, before, after);
  if (!helper::CheckAdminLineEdit(kind, after, before)) __builtin_trap();
  return 0;
}
