#include "util/text.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace rocmtune::text {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::string Clean(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (char c : raw)
    if (c != '\0') out.push_back(c);
  return std::string(Trim(out));
}

std::vector<std::string_view> SplitLines(std::string_view s) {
  std::vector<std::string_view> lines;
  while (!s.empty()) {
    size_t nl = s.find('\n');
    std::string_view line = s.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    s.remove_prefix(nl + 1);
  }
  return lines;
}

std::vector<std::string_view> Tokens(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    size_t start = i;
    while (i < s.size() && !IsSpace(s[i])) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

std::map<std::string, std::string, std::less<>> ParseKeySpaceValue(std::string_view content) {
  std::map<std::string, std::string, std::less<>> out;
  for (std::string_view line : SplitLines(content)) {
    auto tokens = Tokens(line);
    if (tokens.size() < 2) continue;
    out[std::string(tokens[0])] = std::string(tokens[1]);
  }
  return out;
}

std::map<std::string, std::string, std::less<>> ParseKeyEqualsValue(std::string_view content) {
  std::map<std::string, std::string, std::less<>> out;
  for (std::string_view line : SplitLines(content)) {
    line = Trim(line);
    size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    out[std::string(Trim(line.substr(0, eq)))] = std::string(Trim(line.substr(eq + 1)));
  }
  return out;
}

std::optional<uint64_t> ParseU64(std::string_view s, int base) {
  s = Trim(s);
  if (s.empty()) return std::nullopt;
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

std::optional<int64_t> ParseI64(std::string_view s) {
  s = Trim(s);
  if (s.empty()) return std::nullopt;
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value, 10);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

std::optional<uint64_t> ParseHex(std::string_view s) {
  s = Trim(s);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  return ParseU64(s, 16);
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace rocmtune::text
