#include "util/shell_words.h"

#include <algorithm>

#include <fmt/format.h>

namespace rocmtune::shell {
namespace {

bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }

void AddText(std::vector<Segment>& segs, std::string_view text) {
  if (segs.empty() || segs.back().kind != Segment::kText) segs.push_back({Segment::kText, {}});
  segs.back().text += text;
}

class Parser {
 public:
  explicit Parser(std::string_view src) : s_(src) {}

  std::vector<Command> Parse() {
    std::vector<Command> out;
    if (s_.find('\0') != std::string_view::npos) {
      out.push_back({1, {}, "the file contains NUL bytes"});
      return out;
    }
    for (;;) {
      SkipBlanks();
      if (End()) break;
      char c = s_[pos_];
      if (c == '\n') {
        ++pos_;
        ++line_;
        continue;
      }
      if (c == '#') {  // a comment ends at the newline; a backslash does not continue it
        while (!End() && s_[pos_] != '\n') ++pos_;
        continue;
      }
      Command cmd;
      cmd.line = line_;
      if (!ParseCommand(cmd)) {
        cmd.unsupported = why_;
        out.push_back(std::move(cmd));
        if (fatal_) break;  // after an unterminated quote nothing can be trusted
        SkipRestOfLine();
        continue;
      }
      out.push_back(std::move(cmd));
    }
    return out;
  }

 private:
  bool End() const { return pos_ >= s_.size(); }
  char At(size_t i) const { return i < s_.size() ? s_[i] : '\0'; }
  bool Unsupported(std::string why) {
    why_ = std::move(why);
    return false;
  }
  bool Fatal(std::string why) {
    fatal_ = true;
    return Unsupported(std::move(why));
  }
  void CountLines(size_t from, size_t to) {
    line_ += static_cast<int>(
        std::count(s_.begin() + static_cast<std::ptrdiff_t>(from), s_.begin() + static_cast<std::ptrdiff_t>(to), '\n'));
  }

  void SkipBlanks() {
    for (;;) {
      if (At(pos_) == ' ' || At(pos_) == '\t') {
        ++pos_;
      } else if (At(pos_) == '\\' && At(pos_ + 1) == '\n') {
        pos_ += 2;
        ++line_;
      } else {
        return;
      }
    }
  }

  void SkipRestOfLine() {
    while (!End() && s_[pos_] != '\n') {
      if (s_[pos_] == '\\' && At(pos_ + 1) == '\n') {
        ++line_;
        ++pos_;
      }
      ++pos_;
    }
  }

  // One simple command: assignments (`A=1 B=$A`), or `export` followed by assignments and names.
  bool ParseCommand(Command& cmd) {
    bool first = true;
    bool exporting = false;
    for (;; first = false) {
      SkipBlanks();
      if (End()) return true;
      char c = s_[pos_];
      if (c == '\n' || c == '#') return true;  // '#' at the start of a word begins a comment
      if (c == ';') {
        ++pos_;
        SkipBlanks();
        if (first || At(pos_) == ';') return Unsupported("';' without a command (a syntax error for sh)");
        return true;
      }
      if (std::string_view("&|<>()").find(c) != std::string_view::npos)
        return Unsupported(fmt::format("operator '{}'", c));
      size_t name_end = pos_;
      while (name_end < s_.size() && IsNameChar(s_[name_end])) ++name_end;
      if (IsNameStart(c) && At(name_end) == '=' && (first || exporting || !cmd.assignments.empty())) {
        Assignment a;
        a.name = std::string(s_.substr(pos_, name_end - pos_));
        a.line = line_;
        pos_ = name_end + 1;
        a.value_begin = pos_;
        a.complete = ReadWord(a.value, true);
        a.value_end = pos_;
        cmd.assignments.push_back(std::move(a));
        if (!cmd.assignments.back().complete) return false;
        continue;
      }
      size_t begin = pos_;
      std::vector<Segment> word;
      if (!ReadWord(word, false)) return false;
      std::string_view raw = s_.substr(begin, pos_ - begin);
      if (first && raw == "export") {
        exporting = true;
      } else if (!exporting || !IsName(raw)) {
        return Unsupported(fmt::format("`{}` (not a simple assignment)", Short(raw)));
      }
    }
  }

  bool ReadWord(std::vector<Segment>& segs, bool assignment_value) {
    size_t begin = pos_;
    while (!End()) {
      char c = s_[pos_];
      if (c == '\\') {
        if (At(pos_ + 1) == '\n') {
          pos_ += 2;
          ++line_;
          continue;
        }
        if (pos_ + 1 >= s_.size()) return Unsupported("'\\' at the end of the file");
        AddText(segs, s_.substr(pos_ + 1, 1));
        pos_ += 2;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\n' || std::string_view(";&|<>()").find(c) != std::string_view::npos) break;
      if (c == '\'') {
        size_t close = s_.find('\'', pos_ + 1);
        if (close == std::string_view::npos) return Fatal("unterminated '...'");
        AddText(segs, s_.substr(pos_ + 1, close - pos_ - 1));
        CountLines(pos_, close);
        pos_ = close + 1;
        continue;
      }
      if (c == '"') {
        if (!ReadDouble(segs)) return false;
        continue;
      }
      if (c == '$') {
        if (!ReadDollar(segs, false)) return false;
        continue;
      }
      if (c == '`') {
        if (!ReadBackquote(segs)) return false;
        continue;
      }
      // Tilde expansion happens in assignment values at the start and after ':' (XCU 2.6.1).
      if (assignment_value && c == '~' && (pos_ == begin || s_[pos_ - 1] == ':')) return Unsupported("tilde expansion");
      AddText(segs, s_.substr(pos_, 1));
      ++pos_;
    }
    return true;
  }

  bool ReadDouble(std::vector<Segment>& segs) {
    ++pos_;
    for (;;) {
      if (End()) return Fatal("unterminated \"...\"");
      char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c == '\\') {
        char n = At(pos_ + 1);
        if (n == '\n') {
          pos_ += 2;
          ++line_;
        } else if (n == '$' || n == '`' || n == '"' || n == '\\') {
          AddText(segs, s_.substr(pos_ + 1, 1));
          pos_ += 2;
        } else {
          AddText(segs, "\\");
          ++pos_;
        }
        continue;
      }
      if (c == '$') {
        if (!ReadDollar(segs, true)) return false;
        continue;
      }
      if (c == '`') {
        if (!ReadBackquote(segs)) return false;
        continue;
      }
      if (c == '\n') ++line_;
      AddText(segs, s_.substr(pos_, 1));
      ++pos_;
    }
  }

  bool ReadDollar(std::vector<Segment>& segs, bool in_double) {
    char n = At(pos_ + 1);
    if (n == '{') {
      size_t close = s_.find('}', pos_ + 2);
      std::string_view inner = s_.substr(pos_ + 2, close == std::string_view::npos ? 0 : close - pos_ - 2);
      if (close == std::string_view::npos || !IsName(inner))
        return Unsupported(
            fmt::format("parameter expansion '{}' (only $NAME and ${{NAME}} are modelled)",
                        Short(s_.substr(pos_, close == std::string_view::npos ? 20 : close + 1 - pos_))));
      segs.push_back({Segment::kParam, std::string(inner)});
      pos_ = close + 1;
      return true;
    }
    if (n == '(') {
      if (At(pos_ + 2) == '(') return Unsupported("arithmetic expansion $((...))");
      size_t close = MatchParen(pos_ + 2);
      if (close == std::string_view::npos) return Fatal("unterminated $(...)");
      CountLines(pos_, close);
      segs.push_back({Segment::kCommand, std::string(s_.substr(pos_, close + 1 - pos_))});
      pos_ = close + 1;
      return true;
    }
    if (IsNameStart(n)) {
      size_t end = pos_ + 1;
      while (IsNameChar(At(end))) ++end;
      segs.push_back({Segment::kParam, std::string(s_.substr(pos_ + 1, end - pos_ - 1))});
      pos_ = end;
      return true;
    }
    if (n != '\0' && std::string_view("0123456789@*#?-$!").find(n) != std::string_view::npos)
      return Unsupported(fmt::format("special parameter ${}", n));
    if (!in_double && (n == '\'' || n == '"'))
      return Unsupported(fmt::format("${}...{} quoting (bash and dash read it differently)", n, n));
    AddText(segs, "$");
    ++pos_;
    return true;
  }

  bool ReadBackquote(std::vector<Segment>& segs) {
    size_t i = pos_ + 1;
    while (i < s_.size() && s_[i] != '`') i += s_[i] == '\\' ? 2 : 1;
    if (i >= s_.size()) return Fatal("unterminated `...`");
    CountLines(pos_, i);
    segs.push_back({Segment::kCommand, std::string(s_.substr(pos_, i + 1 - pos_))});
    pos_ = i + 1;
    return true;
  }

  // The ')' closing a "$(" whose body starts at `i`; quotes and nested parentheses skipped.
  size_t MatchParen(size_t i) const {
    int depth = 1;
    for (; i < s_.size(); ++i) {
      char c = s_[i];
      if (c == '\\') {
        ++i;
      } else if (c == '\'' || c == '"' || c == '`') {
        for (++i; i < s_.size() && s_[i] != c; ++i)
          if (c != '\'' && s_[i] == '\\') ++i;
        if (i >= s_.size()) return std::string_view::npos;
      } else if (c == '(') {
        ++depth;
      } else if (c == ')' && --depth == 0) {
        return i;
      }
    }
    return std::string_view::npos;
  }

  std::string_view s_;
  size_t pos_ = 0;
  int line_ = 1;
  std::string why_;
  bool fatal_ = false;
};

}  // namespace

bool IsName(std::string_view s) {
  return !s.empty() && IsNameStart(s.front()) && std::all_of(s.begin(), s.end(), IsNameChar);
}

std::string Short(std::string_view s) {
  std::string out(s.substr(0, 40));
  for (char& c : out)
    if (c == '\n' || c == '\t') c = ' ';
  return s.size() > 40 ? out + "..." : out;
}

std::vector<Command> ParseScript(std::string_view script) { return Parser(script).Parse(); }

std::optional<std::string> LiteralValue(const std::vector<Segment>& value) {
  std::string out;
  for (const Segment& seg : value) {
    if (seg.kind != Segment::kText) return std::nullopt;
    out += seg.text;
  }
  return out;
}

}  // namespace rocmtune::shell
