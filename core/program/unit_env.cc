#include "program/unit_env.h"

#include <array>
#include <cstring>

#include "util/shell_words.h"
#include "util/text.h"

namespace rocmtune::program {
namespace {

constexpr std::string_view kWhitespace = " \t\n\r";      // systemd's WHITESPACE
constexpr std::string_view kNewline = "\n\r";            // NEWLINE
constexpr std::string_view kComments = "#;";             // COMMENTS
constexpr std::string_view kShellNeedEscape = "\"\\`$";  // SHELL_NEED_ESCAPE

bool In(std::string_view set, char c) { return set.find(c) != std::string_view::npos; }

// utf8_is_valid (src/basic/utf8.c): well-formed sequences, no overlongs, no surrogates.
bool ValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    uint32_t cp = len == 1 ? c : c & (0xff >> (len + 1));
    for (size_t k = 1; k < len; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    static constexpr std::array<uint32_t, 5> kMin = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += len;
  }
  return true;
}

std::string_view TrimWhitespace(std::string_view s) {
  while (!s.empty() && In(kWhitespace, s.front())) s.remove_prefix(1);
  while (!s.empty() && In(kWhitespace, s.back())) s.remove_suffix(1);
  return s;
}

// One C escape after a backslash (src/basic/escape.c cunescape_one), appended to `out`; the
// number of bytes consumed after the backslash, or 0 for an escape systemd rejects.
size_t CUnescapeOne(std::string_view p, std::string& out) {
  if (p.empty()) return 0;
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  switch (p[0]) {
    case 'a': out += '\a'; return 1;
    case 'b': out += '\b'; return 1;
    case 'f': out += '\f'; return 1;
    case 'n': out += '\n'; return 1;
    case 'r': out += '\r'; return 1;
    case 't': out += '\t'; return 1;
    case 'v': out += '\v'; return 1;
    case 's': out += ' '; return 1;
    case '\\':
    case '"':
    case '\'': out += p[0]; return 1;
    case 'x': {
      if (p.size() < 3 || hex(p[1]) < 0 || hex(p[2]) < 0) return 0;
      int v = hex(p[1]) * 16 + hex(p[2]);
      if (v == 0) return 0;  // no NUL bytes
      out += static_cast<char>(v);
      return 3;
    }
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7': {
      if (p.size() < 3 || p[1] < '0' || p[1] > '7' || p[2] < '0' || p[2] > '7') return 0;
      int v = (p[0] - '0') * 64 + (p[1] - '0') * 8 + (p[2] - '0');
      if (v == 0 || v > 255) return 0;
      out += static_cast<char>(v);
      return 3;
    }
    default: return 0;  // \u and \U (code points) are not modelled: treated as invalid, the line ends
  }
}

}  // namespace

Result<std::vector<knobs::EnvSetting>> ParseEnvFile(std::string_view content) {
  // The parser walks a C string: nothing after a NUL byte exists for it.
  if (size_t nul = content.find('\0'); nul != std::string_view::npos) content = content.substr(0, nul);
  enum State {
    kPreKey,
    kKey,
    kPreValue,
    kValue,
    kValueEscape,
    kSingle,
    kDouble,
    kDoubleEscape,
    kComment,
    kCommentEscape
  };
  State state = kPreKey;
  std::vector<knobs::EnvSetting> out;
  std::string key, value;
  bool have_value = false;
  size_t last_key_ws = std::string::npos, last_value_ws = std::string::npos;
  int line = 1, key_line = 1;
  std::optional<Error> bad;
  auto push = [&](bool chomp_value) {
    if (chomp_value && last_value_ws != std::string::npos) value.resize(last_value_ws);
    if (last_key_ws != std::string::npos) key.resize(last_key_ws);
    if (!ValidUtf8(key) || !ValidUtf8(value)) {
      if (!bad) bad = Error{ErrorCode::kInvalidData, 0, "invalid UTF-8 at line " + std::to_string(key_line)};
    } else if (shell::IsName(key)) {
      out.push_back({"", key_line, key, have_value ? value : std::string()});
    }
    key.clear();
    value.clear();
    have_value = false;
  };
  for (char c : content) {
    switch (state) {
      case kPreKey:
        if (In(kComments, c)) {
          state = kComment;
        } else if (!In(kWhitespace, c)) {
          state = kKey;
          last_key_ws = std::string::npos;
          key_line = line;
          key.assign(1, c);
        } else if (c == '\n') {
          ++line;
        }
        break;
      case kKey:
        if (In(kNewline, c)) {
          state = kPreKey;
          if (c == '\n') ++line;
          key.clear();
        } else if (c == '=') {
          state = kPreValue;
          last_value_ws = std::string::npos;
        } else {
          if (!In(kWhitespace, c)) last_key_ws = std::string::npos;
          else if (last_key_ws == std::string::npos) last_key_ws = key.size();
          key += c;
        }
        break;
      case kPreValue:
        if (In(kNewline, c)) {
          state = kPreKey;
          push(false);
          if (c == '\n') ++line;
        } else if (c == '\'') {
          state = kSingle;
          have_value = true;
        } else if (c == '"') {
          state = kDouble;
          have_value = true;
        } else if (c == '\\') {
          state = kValueEscape;
        } else if (!In(kWhitespace, c)) {
          state = kValue;
          have_value = true;
          value += c;
        }
        break;
      case kValue:
        if (In(kNewline, c)) {
          state = kPreKey;
          push(true);
          if (c == '\n') ++line;
        } else if (c == '\\') {
          state = kValueEscape;
          last_value_ws = std::string::npos;
        } else {
          if (!In(kWhitespace, c)) last_value_ws = std::string::npos;
          else if (last_value_ws == std::string::npos) last_value_ws = value.size();
          value += c;
        }
        break;
      case kValueEscape:
        state = kValue;
        have_value = true;
        if (!In(kNewline, c)) value += c;  // an escaped newline is eaten
        else if (c == '\n') ++line;
        break;
      case kSingle:
        if (c == '\'') state = kPreValue;
        else value += c;
        if (c == '\n') ++line;
        break;
      case kDouble:
        if (c == '"') state = kPreValue;
        else if (c == '\\') state = kDoubleEscape;
        else value += c;
        if (c == '\n') ++line;
        break;
      case kDoubleEscape:
        state = kDouble;
        if (In(kShellNeedEscape, c)) {
          value += c;
        } else if (c != '\n') {
          value += '\\';
          value += c;
        } else {
          ++line;
        }
        break;
      case kComment:
        if (c == '\\') state = kCommentEscape;
        else if (In(kNewline, c)) state = kPreKey;
        if (c == '\n') ++line;
        break;
      case kCommentEscape:
        state = In(kNewline, c) ? kPreKey : kComment;
        if (c == '\n') ++line;
        break;
    }
  }
  if (state == kPreValue || state == kValue || state == kValueEscape || state == kSingle || state == kDouble ||
      state == kDoubleEscape)
    push(state == kValue);
  if (bad) return tl::unexpected<Error>(*bad);
  return out;
}

EnvironmentWords SplitEnvironmentValue(std::string_view rvalue) {
  const std::string_view p = rvalue;
  EnvironmentWords out;
  size_t i = 0;
  while (true) {
    while (i < p.size() && In(kWhitespace, p[i])) ++i;
    if (i >= p.size()) return out;
    std::string word;
    char quote = 0;
    for (; i < p.size(); ++i) {
      char c = p[i];
      if (c == '\\') {
        size_t used = CUnescapeOne(p.substr(i + 1), word);
        if (used == 0) {  // a trailing backslash or an escape systemd does not know
          out.complete = false;
          return out;
        }
        i += used;
      } else if (quote) {
        if (c == quote) quote = 0;
        else word += c;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (In(kWhitespace, c)) {
        break;
      } else {
        word += c;
      }
    }
    if (quote) {
      out.complete = false;
      return out;
    }
    out.words.push_back(std::move(word));
  }
}

std::vector<UnitAssignment> ParseUnitFile(std::string_view content) {
  std::vector<UnitAssignment> out;
  std::string section, continuation;
  int start_line = 0, number = 0;
  if (size_t nul = content.find('\0'); nul != std::string_view::npos) content = content.substr(0, nul);
  for (std::string_view raw : text::SplitLines(content)) {
    ++number;
    std::string_view l = TrimWhitespace(raw);
    if (!l.empty() && In(kComments, l.front())) continue;  // also inside a continuation
    std::string joined = continuation.empty() ? std::string(raw) : continuation + std::string(raw);
    if (continuation.empty()) start_line = number;
    // A line ending in an unescaped backslash continues: the backslash becomes a space.
    bool escaped = false;
    for (char c : joined) escaped = escaped ? false : c == '\\';
    if (escaped) {
      joined.back() = ' ';
      continuation = std::move(joined);
      continue;
    }
    continuation.clear();
    std::string_view line = TrimWhitespace(joined);
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.back() == ']') section = std::string(line.substr(1, line.size() - 2));
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;  // "Missing '=', ignoring line."
    out.push_back({section, std::string(TrimWhitespace(line.substr(0, eq))),
                   std::string(TrimWhitespace(line.substr(eq + 1))), start_line});
  }
  return out;
}

std::optional<std::string> ResolveSpecifiers(std::string_view word, const UnitNames& names) {
  std::string_view unit = names.unit;
  size_t dot = unit.rfind('.');
  std::string_view stem = dot == std::string_view::npos ? unit : unit.substr(0, dot);  // %N
  size_t at = stem.find('@');
  std::string_view prefix = at == std::string_view::npos ? stem : stem.substr(0, at);   // %p
  std::string_view instance = at == std::string_view::npos ? "" : stem.substr(at + 1);  // %i
  size_t dash = prefix.find('-');
  std::string_view first = dash == std::string_view::npos ? prefix : prefix.substr(0, dash);  // %j
  std::string out;
  for (size_t i = 0; i < word.size(); ++i) {
    if (word[i] != '%') {
      out += word[i];
      continue;
    }
    if (++i >= word.size()) return std::nullopt;
    switch (word[i]) {
      case '%': out += '%'; break;
      case 'n': out += unit; break;
      case 'N': out += stem; break;
      case 'p': out += prefix; break;
      case 'i': out += instance; break;
      case 'j': out += first; break;
      case 'h':
        if (!names.user) out += "/root";
        else if (!names.home.empty()) out += names.home;
        else return std::nullopt;
        break;
      case 'u':
        if (names.user) return std::nullopt;
        out += "root";
        break;
      case 'U':
        if (names.user) return std::nullopt;
        out += "0";
        break;
      default: return std::nullopt;
    }
  }
  return out;
}

bool IsUnitName(std::string_view name) {
  static constexpr std::array<std::string_view, 11> kTypes = {".service", ".socket",    ".target", ".device",
                                                              ".mount",   ".automount", ".swap",   ".timer",
                                                              ".path",    ".slice",     ".scope"};
  if (name.empty() || name.size() > 255) return false;
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return false;
  bool typed = false;
  for (std::string_view t : kTypes) typed = typed || name.substr(dot) == t;
  if (!typed) return false;
  std::string_view stem = name.substr(0, dot);
  for (char c : stem)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || In(":-_.\\@", c))) return false;
  size_t at = stem.find('@');
  return at == std::string_view::npos || (at > 0 && stem.find('@', at + 1) == std::string_view::npos);
}

}  // namespace rocmtune::program
