#include "plan/unified_diff.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "plan/plan.h"

namespace rocmtune::plan {
namespace {

struct Line {
  std::string_view text;
  bool newline;  // false for a last line without '\n'
};

std::vector<Line> Lines(std::string_view s) {
  std::vector<Line> out;
  while (!s.empty()) {
    size_t nl = s.find('\n');
    if (nl == std::string_view::npos) {
      out.push_back({s, false});
      break;
    }
    out.push_back({s.substr(0, nl), true});
    s.remove_prefix(nl + 1);
  }
  return out;
}

enum class Tag { kKeep, kDel, kAdd };
struct Edit {
  Tag tag;
  size_t a, b;  // indexes into before / after
};

// LCS over lines: configuration files are small, O(n*m) is fine and easy to trust.
std::vector<Edit> Diff(const std::vector<Line>& a, const std::vector<Line>& b) {
  size_t n = a.size(), m = b.size();
  std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
  auto same = [&](size_t i, size_t j) { return a[i].text == b[j].text && a[i].newline == b[j].newline; };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = same(i, j) ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<Edit> edits;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && same(i, j)) {
      edits.push_back({Tag::kKeep, i++, j++});
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      edits.push_back({Tag::kDel, i++, j});  // deletions first, as diff -u prints them
    } else {
      edits.push_back({Tag::kAdd, i, j++});
    }
  }
  return edits;
}

void Emit(std::string& out, char sign, const Line& line) {
  out += sign;
  out.append(line.text);
  out += '\n';
  if (!line.newline) out += "\\ No newline at end of file\n";
}

}  // namespace

std::string UnifiedDiff(std::string_view path, const std::optional<std::string>& before,
                        const std::optional<std::string>& after) {
  if (before == after) return "";
  const std::string before_text = before.value_or(""), after_text = after.value_or("");  // Lines() views these
  std::vector<Line> a = Lines(before_text), b = Lines(after_text);
  std::vector<Edit> edits = Diff(a, b);
  constexpr size_t kContext = 3;
  std::string out = fmt::format("--- {}\n+++ {}\n", before ? fmt::format("a/{}", path) : "/dev/null",
                                after ? fmt::format("b/{}", path) : "/dev/null");
  size_t k = 0;
  while (k < edits.size()) {
    // Find the next change and the hunk around it.
    while (k < edits.size() && edits[k].tag == Tag::kKeep) ++k;
    if (k == edits.size()) break;
    size_t start = k >= kContext ? k - kContext : 0;
    // Extend over changes separated by at most 2*kContext unchanged lines, then keep only
    // kContext unchanged lines after the last change.
    size_t end = k;
    size_t quiet = 0;
    while (end < edits.size() && quiet < 2 * kContext + 1) {
      quiet = edits[end].tag == Tag::kKeep ? quiet + 1 : 0;
      ++end;
    }
    if (quiet > kContext) end -= quiet - kContext;
    size_t a_count = 0, b_count = 0;
    for (size_t e = start; e < end; ++e) {
      if (edits[e].tag != Tag::kAdd) ++a_count;
      if (edits[e].tag != Tag::kDel) ++b_count;
    }
    size_t a_start = a_count ? edits[start].a + 1 : edits[start].a;
    size_t b_start = b_count ? edits[start].b + 1 : edits[start].b;
    out += fmt::format("@@ -{},{} +{},{} @@\n", a_start, a_count, b_start, b_count);
    for (size_t e = start; e < end; ++e) {
      const Edit& ed = edits[e];
      if (ed.tag == Tag::kKeep) Emit(out, ' ', a[ed.a]);
      else if (ed.tag == Tag::kDel) Emit(out, '-', a[ed.a]);
      else Emit(out, '+', b[ed.b]);
    }
    k = end;
  }
  return out;
}

}  // namespace rocmtune::plan
