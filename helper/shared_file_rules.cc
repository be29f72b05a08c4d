// Edits of files rocmtune shares with the system (/etc/default/grub, BLS entries,
// /etc/kernel/cmdline): `before` and `after` may differ only in the tokens of the lines that
// carry the kernel command line, the same edits boot/cmdline_tokens.h and grub_config.h make.
// Everything else in these files (GRUB_TIMEOUT, GRUB_INIT_TUNE, an entry's linux/initrd lines)
// decides how the machine boots and is the admin's.
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "boot/grub_config.h"
#include "helper/allow_list.h"
#include "helper/rules.h"

namespace rocmtune::helper {
namespace {

constexpr std::string_view kBlsOptions = "options";

// Lines split at every '\n', exactly: "a\nb\n" -> {"a", "b", ""}. A '\r' stays part of its line,
// so changing line endings is a change.
std::vector<std::string_view> ExactLines(std::string_view s) {
  std::vector<std::string_view> lines;
  for (size_t start = 0;;) {
    size_t nl = s.find('\n', start);
    lines.push_back(s.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    if (nl == std::string_view::npos) return lines;
    start = nl + 1;
  }
}

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

size_t SkipBlanks(std::string_view s, size_t i) {
  while (i < s.size() && IsBlank(s[i])) ++i;
  return i;
}

bool HasControl(std::string_view s) {
  for (char c : s)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) return true;
  return false;
}

// A line that carries a command line, cut into what must stay (head, tail) and the value whose
// tokens may change.
struct CmdlineLine {
  std::string_view key;   // the GRUB variable, or "options"
  std::string_view head;  // indentation, `export `, NAME=, the opening quote
  std::string_view value;
  std::string_view tail;  // the closing quote and whatever follows (spacing, a comment, ';' ...)
  char quote = '\0';
};
using LineParser = std::optional<CmdlineLine> (*)(std::string_view);

// `[export ]GRUB_CMDLINE_LINUX[_DEFAULT]=VALUE` with VALUE a plain literal ("..." without $ ` \,
// '...', or a bare word): the only shapes SetAssignmentTokens edits. Anything else (an expansion,
// a value continued on the next line, mixed quoting) is not a command-line line here, so a change
// to it is refused as a change of another line.
std::optional<CmdlineLine> ParseGrubLine(std::string_view line) {
  size_t i = SkipBlanks(line, 0);
  if (line.substr(i).starts_with("export") && i + 6 < line.size() && IsBlank(line[i + 6])) i = SkipBlanks(line, i + 6);
  size_t eq = line.find('=', i);
  if (eq == std::string_view::npos) return std::nullopt;
  CmdlineLine out;
  out.key = line.substr(i, eq - i);
  if (out.key != boot::kGrubCmdlineLinux && out.key != boot::kGrubCmdlineLinuxDefault) return std::nullopt;
  size_t v = eq + 1;
  if (v < line.size() && (line[v] == '"' || line[v] == '\'')) {
    out.quote = line[v];
    size_t close = line.find(out.quote, v + 1);
    if (close == std::string_view::npos) return std::nullopt;
    out.head = line.substr(0, v + 1);
    out.value = line.substr(v + 1, close - v - 1);
    out.tail = line.substr(close + 1);
    if (out.quote == '"' && out.value.find_first_of("$`\\") != std::string_view::npos) return std::nullopt;
  } else {
    size_t end = line.find_first_of(" \t;&|<>()", v);
    if (end == std::string_view::npos) end = line.size();
    out.head = line.substr(0, v);
    out.value = line.substr(v, end - v);
    out.tail = line.substr(end);
    if (out.value.find_first_of("\"'$`\\") != std::string_view::npos) return std::nullopt;
  }
  if (!out.tail.empty() && !IsBlank(out.tail.front()) && out.tail.front() != ';') return std::nullopt;
  if (HasControl(out.value)) return std::nullopt;
  return out;
}

// A BLS entry's `options VALUE` line, as FindOptionsLines (cmdline_tokens.cc) finds it.
std::optional<CmdlineLine> ParseBlsLine(std::string_view line) {
  size_t i = SkipBlanks(line, 0);
  std::string_view rest = line.substr(i);
  if (!rest.starts_with(kBlsOptions) || (rest.size() > kBlsOptions.size() && !IsBlank(rest[kBlsOptions.size()])))
    return std::nullopt;
  size_t v = SkipBlanks(line, i + kBlsOptions.size());
  size_t end = line.size();
  if (end > v && line[end - 1] == '\r') --end;
  CmdlineLine out{kBlsOptions, line.substr(0, v), line.substr(v, end - v), line.substr(end)};
  if (HasControl(out.value)) return std::nullopt;
  return out;
}

// The same line with other tokens. Its frame may change only as the backend changes it: a bare
// GRUB value that gains a space gets "..." around it, a bare `options` gets a blank after it.
Result<void> CheckLineEdit(const CmdlineLine& before, const CmdlineLine& after, size_t number,
                           std::vector<std::string>* removed) {
  bool same_frame =
      before.key == after.key && before.head == after.head && before.tail == after.tail && before.quote == after.quote;
  bool quoted_now = before.key == after.key && before.quote == '\0' && after.quote == '"' &&
                    after.head == std::string(before.head) + '"' && before.tail == after.tail;
  bool separated_now = before.key == kBlsOptions && after.key == kBlsOptions && before.value.empty() &&
                       after.head == std::string(before.head) + ' ' && before.tail == after.tail;
  if (!same_frame && !quoted_now && !separated_now)
    return Refuse(rule::kSharedOtherLine,
                  fmt::format("line {}: only the tokens inside the value of {} may change", number, before.key));
  return CheckTokenChange(before.value, after.value, removed);
}

// The backend appends `VAR="tokens"` / `options tokens` to a file that has no such line
// (SetAssignmentTokens, SetBlsOptions): the only way the line count may change.
Result<void> CheckAppendedLine(std::string_view before, std::string_view after, LineParser parse) {
  auto refuse = [] {
    return Refuse(rule::kSharedOtherLine,
                  "the lines changed: only the command-line line may be edited, or appended "
                  "to a file that has none");
  };
  std::string base(before);
  if (!base.empty() && base.back() != '\n') base.push_back('\n');
  if (!after.starts_with(base)) return refuse();
  std::string_view added = after.substr(base.size());
  if (added.empty() || added.find('\n') != added.size() - 1) return refuse();
  std::optional<CmdlineLine> line = parse(added.substr(0, added.size() - 1));
  if (!line || !line->tail.empty()) return refuse();
  bool is_options = line->key == kBlsOptions;
  if (line->head != (is_options ? std::string("options ") : std::string(line->key) + "=\"")) return refuse();
  for (std::string_view l : ExactLines(before))
    if (auto old = parse(l); old && old->key == line->key) return refuse();
  // An assignment the parser does not model still is one: grub-mkconfig would use the last.
  if (!is_options && before.find(std::string(line->key) + "=") != std::string_view::npos) return refuse();
  return CheckTokenChange("", line->value);
}

Result<void> CheckLinesEdit(std::string_view before, std::string_view after, LineParser parse,
                            std::vector<std::string>* removed) {
  std::vector<std::string_view> b = ExactLines(before), a = ExactLines(after);
  if (b.size() != a.size()) return CheckAppendedLine(before, after, parse);
  for (size_t i = 0; i < b.size(); ++i) {
    if (b[i] == a[i]) continue;
    std::optional<CmdlineLine> old_line = parse(b[i]), new_line = parse(a[i]);
    if (!old_line || !new_line)
      return Refuse(rule::kSharedOtherLine,
                    fmt::format("line {} changed and it does not carry the kernel command line", i + 1));
    if (auto ok = CheckLineEdit(*old_line, *new_line, i + 1, removed); !ok) return ok;
  }
  return {};
}

// /etc/kernel/cmdline is one command line (kernel-install reads every word of it), so every byte
// is a token or the space between them.
Result<void> CheckKernelCmdlineEdit(std::string_view before, std::string_view after,
                                    std::vector<std::string>* removed) {
  for (char c : after)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
      return Refuse(rule::kSharedOtherLine, "a control character in the command line");
  return CheckTokenChange(before, after, removed);
}

}  // namespace

Result<void> CheckSharedEdit(SharedFile kind, std::string_view before, std::string_view after,
                             std::vector<std::string>* removed) {
  switch (kind) {
    case SharedFile::kGrubDefaults: return CheckLinesEdit(before, after, ParseGrubLine, removed);
    case SharedFile::kBlsEntry: return CheckLinesEdit(before, after, ParseBlsLine, removed);
    case SharedFile::kKernelCmdline: return CheckKernelCmdlineEdit(before, after, removed);
  }
  return Refuse(rule::kPathNotAllowed, "not a shared file");
}

}  // namespace rocmtune::helper
