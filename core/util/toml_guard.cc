#include "util/toml_guard.h"

#include <fmt/format.h>

#include "util/content_json.h"

namespace rocmtune {
namespace {

// Where the scan is: outside any string, in a comment, or in one of TOML's four strings.
enum class Context { kBare, kComment, kBasic, kLiteral, kMultiBasic, kMultiLiteral };

bool At(std::string_view text, size_t i, std::string_view what) { return text.substr(i, what.size()) == what; }

// Past a closing """ or ''': up to two more quotes still belong to the string ("""a"""" is a").
size_t PastClosing(std::string_view text, size_t i, char quote) {
  size_t end = i + 3;
  for (int extra = 0; extra < 2 && end < text.size() && text[end] == quote; ++extra) ++end;
  return end;
}

bool IsTomlSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// A backslash that ends its line inside a """ string: only spaces and tabs before the newline.
bool LineEndingBackslash(std::string_view text, size_t i) {
  size_t j = i + 1;
  while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r')) ++j;
  return j < text.size() && text[j] == '\n';
}

}  // namespace

Result<void> CheckTomlBytes(std::string_view text, std::string_view origin) {
  if (!IsValidUtf8(text)) return Fail(ErrorCode::kInvalidData, fmt::format("{}: not valid UTF-8", origin));
  Context ctx = Context::kBare;
  size_t line = 1;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      // A comment ends here; so does a one-line string (unterminated: toml++ reports that).
      if (ctx == Context::kComment || ctx == Context::kBasic || ctx == Context::kLiteral) ctx = Context::kBare;
      ++i;
      continue;
    }
    switch (ctx) {
      case Context::kBare:
        if (static_cast<unsigned char>(c) >= 0x80)
          return Fail(ErrorCode::kInvalidData,
                      fmt::format("{}: line {}: a non-ASCII character outside a string or comment", origin, line));
        if (At(text, i, "\"\"\"") || At(text, i, "'''")) {
          ctx = c == '"' ? Context::kMultiBasic : Context::kMultiLiteral;
          i += 3;
          break;
        }
        if (c == '#') ctx = Context::kComment;
        else if (c == '"') ctx = Context::kBasic;
        else if (c == '\'') ctx = Context::kLiteral;
        ++i;
        break;
      case Context::kComment: ++i; break;
      case Context::kBasic:
      case Context::kMultiBasic:
        if (c == '\\' && ctx == Context::kBasic && At(text, i + 1, "\n")) {
          ++i;  // a one-line string cannot continue on the next line: toml++ refuses it there
        } else if (c == '\\' && ctx == Context::kMultiBasic && LineEndingBackslash(text, i)) {
          // toml++ skips the whitespace after it and classifies the next character with
          // the table that reaches unreachable code (tomlplusplus#190): it must be ASCII.
          ++i;
          for (; i < text.size() && IsTomlSpace(text[i]); ++i) line += text[i] == '\n';
          if (i < text.size() && static_cast<unsigned char>(text[i]) >= 0x80)
            return Fail(
                ErrorCode::kInvalidData,
                fmt::format("{}: line {}: a non-ASCII character right after a line-ending backslash", origin, line));
        } else if (c == '\\') {
          i += 2;  // the escaped character (a quote, a backslash) does not end the string
        } else if (ctx == Context::kMultiBasic && At(text, i, "\"\"\"")) {
          i = PastClosing(text, i, '"');
          ctx = Context::kBare;
        } else {
          if (ctx == Context::kBasic && c == '"') ctx = Context::kBare;
          ++i;
        }
        break;
      case Context::kLiteral:
        if (c == '\'') ctx = Context::kBare;
        ++i;
        break;
      case Context::kMultiLiteral:
        if (At(text, i, "'''")) {
          i = PastClosing(text, i, '\'');
          ctx = Context::kBare;
        } else {
          ++i;
        }
        break;
    }
  }
  return {};
}

}  // namespace rocmtune
