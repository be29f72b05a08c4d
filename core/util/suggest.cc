#include "util/suggest.h"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace rocmtune::text {

namespace {

// Longer than any name rocmtune knows: no suggestion, and the distance table stays small.
constexpr size_t kMaxInput = 64;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::vector<std::string> Nearest(std::string_view input, const std::vector<std::string>& names, size_t max_distance) {
  if (input.empty() || input.size() > kMaxInput) return {};
  const std::string in = Lower(input);
  std::vector<std::tuple<size_t, std::string>> ranked;
  for (const std::string& name : names) {
    if (name.size() > kMaxInput) continue;
    size_t d = EditDistance(in, Lower(name));
    if (d <= max_distance) ranked.emplace_back(d, name);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  std::vector<std::string> out;
  for (size_t i = 0; i < ranked.size() && i < 3; ++i) out.push_back(std::get<1>(ranked[i]));
  return out;
}

std::string DidYouMean(std::string_view input, const std::vector<std::string>& names) {
  std::vector<std::string> near = Nearest(input, names);
  if (near.empty()) return "";
  std::string out = " Did you mean " + near.front();
  for (size_t i = 1; i < near.size(); ++i) out += (i + 1 == near.size() ? " or " : ", ") + near[i];
  return out + "?";
}

}  // namespace rocmtune::text
