#include "util/text.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace rocmtune::text {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// Length of the UTF-8 sequence a lead byte starts and the range its second byte must be in
// (RFC 3629 table: no overlong forms, no surrogates, nothing past U+10FFFF); 0 for a byte
// that cannot start one.
struct Lead {
  size_t length;
  unsigned char low, high;
};

Lead LeadOf(unsigned char b) {
  if (b >= 0xc2 && b <= 0xdf) return {2, 0x80, 0xbf};
  if (b == 0xe0) return {3, 0xa0, 0xbf};
  if (b == 0xed) return {3, 0x80, 0x9f};
  if (b >= 0xe1 && b <= 0xef) return {3, 0x80, 0xbf};
  if (b == 0xf0) return {4, 0x90, 0xbf};
  if (b >= 0xf1 && b <= 0xf3) return {4, 0x80, 0xbf};
  if (b == 0xf4) return {4, 0x80, 0x8f};
  return {0, 0, 0};
}

// Bytes of the valid sequence starting at s[i] that are present (may be short of the length).
size_t ValidPrefix(std::string_view s, size_t i, const Lead& lead) {
  size_t n = 1;
  while (n < lead.length && i + n < s.size()) {
    auto c = static_cast<unsigned char>(s[i + n]);
    bool ok = n == 1 ? c >= lead.low && c <= lead.high : c >= 0x80 && c <= 0xbf;
    if (!ok) break;
    ++n;
  }
  return n;
}

void AppendEscaped(std::string& out, unsigned char b) {
  constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out.push_back(kHex[b >> 4]);
  out.push_back(kHex[b & 0xf]);
}

}  // namespace

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::string EscapeControl(std::string_view s, bool multiline) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      bool control = b < 0x20 || b == 0x7f;
      if (control && !(multiline && (b == '\n' || b == '\t'))) AppendEscaped(out, b);
      else out.push_back(static_cast<char>(b));
      ++i;
      continue;
    }
    Lead lead = LeadOf(b);
    size_t n = lead.length ? ValidPrefix(s, i, lead) : 0;
    // U+0080..U+009F: C1 controls (0x9b is CSI to many terminals), shown as their bytes.
    bool c1 = n == 2 && lead.length == 2 && b == 0xc2 && static_cast<unsigned char>(s[i + 1]) <= 0x9f;
    // The bidirectional embeddings, overrides and isolates, U+202A..U+202E (e2 80 aa..ae) and
    // U+2066..U+2069 (e2 81 a6..a9): they reorder the rest of the line as a terminal shows it
    // (CVE-2021-42574, "Trojan Source"), so "noretry=0" could read as "0=yrteron" or worse.
    bool bidi = false;
    if (n == 3 && lead.length == 3 && b == 0xe2) {
      auto b1 = static_cast<unsigned char>(s[i + 1]), b2 = static_cast<unsigned char>(s[i + 2]);
      bidi = (b1 == 0x80 && b2 >= 0xaa && b2 <= 0xae) || (b1 == 0x81 && b2 >= 0xa6 && b2 <= 0xa9);
    }
    if (n != lead.length || lead.length == 0 || c1 || bidi) {
      size_t bad = c1 ? 2 : bidi ? 3 : 1;
      for (size_t k = 0; k < bad; ++k) AppendEscaped(out, static_cast<unsigned char>(s[i + k]));
      i += bad;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

size_t IncompleteUtf8Tail(std::string_view s) {
  for (size_t back = 1; back <= 3 && back <= s.size(); ++back) {
    size_t i = s.size() - back;
    auto b = static_cast<unsigned char>(s[i]);
    if (b >= 0x80 && b <= 0xbf) continue;  // a continuation byte: its lead is further back
    Lead lead = LeadOf(b);
    return lead.length > back && ValidPrefix(s, i, lead) == back ? back : 0;
  }
  return 0;
}

std::string Clean(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (char c : raw)
    if (c != '\0') out.push_back(c);
  return std::string(Trim(out));
}

std::vector<std::string_view> SplitFields(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t pos = s.find(sep); pos != std::string_view::npos; pos = s.find(sep, start)) {
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
  out.push_back(s.substr(start));
  return out;
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
