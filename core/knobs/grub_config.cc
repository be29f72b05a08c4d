#include "knobs/grub_config.h"

#include <algorithm>
#include <array>
#include <map>

#include <fmt/format.h>

#include "knobs/cmdline_tokens.h"
#include "util/text.h"

namespace rocmtune::knobs {
namespace {

// ---------------------------------------------------------------------------------------------
// A parser for the part of POSIX sh (XCU 2.2-2.6, 2.9.1) that /etc/default/grub files use.
// It never executes anything: command substitutions are kept as opaque segments, every other
// construct is reported as unsupported.
// ---------------------------------------------------------------------------------------------

struct Segment {
  enum Kind { kText, kParam, kCommand } kind;
  std::string text;  // kText: the bytes; kParam: the name; kCommand: the source, for messages
};

struct ShAssignment {
  std::string name;
  std::vector<Segment> value;
  size_t value_begin = 0;  // the value's raw bytes in the source
  size_t value_end = 0;
  int line = 0;
};

struct ShCommand {
  int line = 0;
  std::vector<ShAssignment> assignments;
  std::string unsupported;  // non-empty: a construct that is not modelled
};

bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }
bool IsName(std::string_view s) {
  return !s.empty() && IsNameStart(s.front()) && std::all_of(s.begin(), s.end(), IsNameChar);
}

std::string Short(std::string_view s) {
  std::string out(s.substr(0, 40));
  for (char& c : out)
    if (c == '\n' || c == '\t') c = ' ';
  return s.size() > 40 ? out + "..." : out;
}

void AddText(std::vector<Segment>& segs, std::string_view text) {
  if (segs.empty() || segs.back().kind != Segment::kText) segs.push_back({Segment::kText, {}});
  segs.back().text += text;
}

class ShParser {
 public:
  explicit ShParser(std::string_view src) : s_(src) {}

  std::vector<ShCommand> Parse() {
    std::vector<ShCommand> out;
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
      ShCommand cmd;
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
    line_ += static_cast<int>(std::count(s_.begin() + static_cast<std::ptrdiff_t>(from),
                                         s_.begin() + static_cast<std::ptrdiff_t>(to), '\n'));
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
  bool ParseCommand(ShCommand& cmd) {
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
        ShAssignment a;
        a.name = std::string(s_.substr(pos_, name_end - pos_));
        a.line = line_;
        pos_ = name_end + 1;
        a.value_begin = pos_;
        if (!ReadWord(a.value, true)) return false;
        a.value_end = pos_;
        cmd.assignments.push_back(std::move(a));
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
      if (assignment_value && c == '~' && (pos_ == begin || s_[pos_ - 1] == ':'))
        return Unsupported("tilde expansion");
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
        return Unsupported(fmt::format("parameter expansion '{}' (only $NAME and ${{NAME}} are modelled)",
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

// ---------------------------------------------------------------------------------------------
// Evaluation
// ---------------------------------------------------------------------------------------------

// Assigned by grub-mkconfig (2.06, before it sources the files) from grub-probe, or with
// version-dependent constants: a file that reads them gets a value rocmtune cannot know offline.
constexpr std::array<std::string_view, 8> kSetByGrubMkconfig = {
    "GRUB_DEVICE", "GRUB_DEVICE_UUID", "GRUB_DEVICE_PARTUUID", "GRUB_DEVICE_BOOT", "GRUB_DEVICE_BOOT_UUID",
    "GRUB_FS",     "GRUB_DISABLE_OS_PROBER", "GRUB_EARLY_INITRD_LINUX_STOCK"};

using Vars = std::map<std::string, std::optional<std::string>, std::less<>>;

std::optional<std::string> Resolve(const std::vector<Segment>& segs, const Vars& vars, std::string& why) {
  std::string value;
  for (const Segment& seg : segs) {
    if (seg.kind == Segment::kText) {
      value += seg.text;
    } else if (seg.kind == Segment::kCommand) {
      why = "command substitution " + Short(seg.text);
      return std::nullopt;
    } else if (auto it = vars.find(seg.text); it != vars.end()) {
      if (!it->second) {
        why = fmt::format("${} is unknown", seg.text);
        return std::nullopt;
      }
      value += *it->second;
    } else if (std::find(kSetByGrubMkconfig.begin(), kSetByGrubMkconfig.end(), seg.text) != kSetByGrubMkconfig.end()) {
      why = fmt::format("${} is set by grub-mkconfig from grub-probe", seg.text);
      return std::nullopt;
    } else if (!seg.text.starts_with("GRUB_")) {
      why = fmt::format("${} is not assigned in these files (environment or grub-mkconfig variable)", seg.text);
      return std::nullopt;
    }  // else: a GRUB_ variable nobody assigned expands to nothing
  }
  return value;
}

class Evaluator {
 public:
  void Source(const std::string& rel, std::string_view content) {
    out_.sourced.push_back(rel);
    for (const ShCommand& cmd : ShParser(content).Parse()) {
      if (!cmd.unsupported.empty()) {
        Unsupported(fmt::format("{}:{}: {}", rel, cmd.line, cmd.unsupported));
        continue;
      }
      for (const ShAssignment& a : cmd.assignments) {
        std::string why;
        std::optional<std::string> value = Resolve(a.value, vars_, why);
        if (!value) out_.opaque.push_back(fmt::format("{}:{}: {} ({})", rel, a.line, a.name, why));
        vars_[a.name] = std::move(value);
        origin_[a.name] = fmt::format("{}:{}", rel, a.line);
      }
    }
  }

  void Unsupported(std::string what) {
    tainted_ = true;
    out_.unsupported.push_back(std::move(what));
  }

  GrubVars Finish() {
    auto get = [&](std::string_view name) -> std::optional<std::string> {
      if (tainted_) return std::nullopt;
      auto it = vars_.find(name);
      return it == vars_.end() ? std::optional<std::string>("") : it->second;
    };
    auto where = [&](const std::string& name) -> std::optional<std::string> {
      auto it = origin_.find(name);
      return it == origin_.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    out_.linux = get("GRUB_CMDLINE_LINUX");
    out_.linux_default = get("GRUB_CMDLINE_LINUX_DEFAULT");
    out_.linux_origin = where("GRUB_CMDLINE_LINUX");
    out_.linux_default_origin = where("GRUB_CMDLINE_LINUX_DEFAULT");
    return std::move(out_);
  }

 private:
  GrubVars out_;
  Vars vars_;
  std::map<std::string, std::string> origin_;
  bool tainted_ = false;
};

bool IsCmdlineVar(std::string_view var) { return var == kGrubCmdlineLinux || var == kGrubCmdlineLinuxDefault; }

constexpr std::string_view kDropInHeader =
    "# Managed by rocmtune; do not edit. Remove it with `rocmtunectl reset`.\n"
    "# grub-mkconfig sources /etc/default/grub, then /etc/default/grub.d/*.cfg in byte order, so this\n"
    "# file comes after the usual drop-ins (such as 50-cloudimg-settings.cfg) and appends to the\n"
    "# value they leave.\n";

}  // namespace

Result<GrubVars> EvaluateGrubDefaults(const sys::Root& root, bool debian_dropins) {
  Evaluator ev;
  const std::string main_file(kGrubDefaultsPath);
  if (root.ResolvedTypeOf(main_file) == sys::EntryType::kFile) {  // `test -f`
    auto content = root.ReadFile(main_file);
    if (!content) return tl::unexpected(content.error());
    ev.Source(main_file, *content);
  }
  const std::string dir = "etc/default/grub.d";
  if (debian_dropins && root.IsDirectory(dir)) {
    auto names = root.ListDir(dir);
    if (!names) return tl::unexpected(names.error());
    std::sort(names->begin(), names->end());  // std::string compares bytes as unsigned char, like strcmp
    for (const std::string& name : *names) {
      if (name.starts_with('.') || !name.ends_with(".cfg")) continue;  // what `*.cfg` matches
      std::string rel = sys::JoinPath(dir, name);
      sys::EntryType type = root.ResolvedTypeOf(rel);
      if (type == sys::EntryType::kMissing) continue;  // `[ -e "${x}" ]` is false
      if (type != sys::EntryType::kFile) {
        ev.Unsupported(fmt::format("{}: not a regular file (`.` fails and grub-mkconfig stops)", rel));
        continue;
      }
      auto content = root.ReadFile(rel);
      if (!content) return tl::unexpected(content.error());
      ev.Source(rel, *content);
    }
  }
  return ev.Finish();
}

std::optional<std::string> EffectiveLinuxArgs(const GrubVars& vars) {
  if (!vars.linux || !vars.linux_default) return std::nullopt;
  return std::string(text::Trim(*vars.linux + " " + *vars.linux_default));
}

Result<std::string> SetAssignmentTokens(std::string_view file_content, std::string_view var,
                                        std::span<const std::string> add_tokens,
                                        std::span<const std::string> remove_keys) {
  if (!IsName(var)) return Fail(ErrorCode::kInvalidArgument, fmt::format("'{}' is not a shell variable name", var));
  std::vector<ShCommand> commands = ShParser(file_content).Parse();
  const ShAssignment* last = nullptr;
  for (const ShCommand& cmd : commands) {
    if (!cmd.unsupported.empty())
      return Fail(ErrorCode::kInvalidData,
                  fmt::format("line {}: {}; rocmtune only edits files made of simple assignments", cmd.line,
                              cmd.unsupported));
    for (const ShAssignment& a : cmd.assignments)
      if (a.name == var) last = &a;
  }
  if (!last) {
    auto value = EditCmdlineText("", add_tokens, remove_keys);
    if (!value) return value;
    if (value->empty()) return std::string(file_content);
    std::string out(file_content);
    if (!out.empty() && out.back() != '\n') out.push_back('\n');
    return out + fmt::format("{}=\"{}\"\n", var, *value);
  }
  std::string_view raw = file_content.substr(last->value_begin, last->value_end - last->value_begin);
  std::string_view inner = raw;
  char quote = '\0';
  if (raw.size() >= 2 && (raw.front() == '"' || raw.front() == '\'') && raw.back() == raw.front()) {
    quote = raw.front();
    inner = raw.substr(1, raw.size() - 2);
  }
  std::string_view forbidden = quote == '\'' ? "'" : "\"'\\$`";
  if (inner.find_first_of(forbidden) != std::string_view::npos)
    return Fail(ErrorCode::kInvalidData,
                fmt::format("line {}: the value of {} is not a plain literal ({}); rocmtune does not rewrite "
                            "expansions, escapes or mixed quoting",
                            last->line, var, Short(raw)));
  auto edited = EditCmdlineText(inner, add_tokens, remove_keys);
  if (!edited) return edited;
  if (quote == '\0' && edited->find_first_of(" \t\n") != std::string::npos) quote = '"';
  std::string replacement = quote ? fmt::format("{0}{1}{0}", quote, *edited) : *edited;
  std::string out(file_content);
  out.replace(last->value_begin, raw.size(), replacement);
  return out;
}

Result<std::string> RocmtuneDropIn(std::string_view var, std::span<const std::string> tokens) {
  if (!IsCmdlineVar(var))
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("'{}': the drop-in sets GRUB_CMDLINE_LINUX or GRUB_CMDLINE_LINUX_DEFAULT", var));
  if (tokens.empty())
    return Fail(ErrorCode::kInvalidArgument, "a drop-in without tokens: remove the file instead");
  for (const std::string& t : tokens)
    if (auto v = ValidateToken(t); !v) return tl::unexpected(v.error());
  return fmt::format("{}{}=\"${} {}\"\n", kDropInHeader, var, var, JoinCmdline(tokens));
}

std::optional<std::vector<std::string>> RocmtuneDropInTokens(std::string_view content, std::string_view var) {
  std::string prefix = fmt::format("\n{}=\"${} ", var, var);
  size_t at = content.rfind(prefix);
  if (at == std::string_view::npos || !content.ends_with("\"\n")) return std::nullopt;
  size_t begin = at + prefix.size();
  std::vector<std::string> tokens = SplitCmdline(content.substr(begin, content.size() - 2 - begin));
  auto expected = RocmtuneDropIn(var, tokens);
  if (!expected || *expected != content) return std::nullopt;
  return tokens;
}

}  // namespace rocmtune::knobs
