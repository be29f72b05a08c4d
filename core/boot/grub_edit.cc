#include <fmt/format.h>

#include "boot/cmdline_tokens.h"
#include "boot/grub_config.h"
#include "util/shell_words.h"

// Edits of /etc/default/grub and rocmtune's grub.d drop-in; the evaluation is in grub_config.cc.
namespace rocmtune::boot {
namespace {

bool IsCmdlineVar(std::string_view var) { return var == kGrubCmdlineLinux || var == kGrubCmdlineLinuxDefault; }

constexpr std::string_view kDropInHeader =
    "# Managed by rocmtune; do not edit. Remove it with `rocmtunectl reset`.\n"
    "# grub-mkconfig sources /etc/default/grub, then /etc/default/grub.d/*.cfg in byte order, so this\n"
    "# file comes after the usual drop-ins (such as 50-cloudimg-settings.cfg) and appends to the\n"
    "# value they leave.\n";

}  // namespace

Result<std::string> SetAssignmentTokens(std::string_view file_content, std::string_view var,
                                        std::span<const std::string> add_tokens,
                                        std::span<const std::string> remove_keys) {
  if (!shell::IsName(var))
    return Fail(ErrorCode::kInvalidArgument, fmt::format("'{}' is not a shell variable name", var));
  std::vector<shell::Command> commands = shell::ParseScript(file_content);
  const shell::Assignment* last = nullptr;
  for (const shell::Command& cmd : commands) {
    if (!cmd.unsupported.empty())
      return Fail(
          ErrorCode::kInvalidData,
          fmt::format("line {}: {}; rocmtune only edits files made of simple assignments", cmd.line, cmd.unsupported));
    for (const shell::Assignment& a : cmd.assignments)
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
                            last->line, var, shell::Short(raw)));
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
  if (tokens.empty()) return Fail(ErrorCode::kInvalidArgument, "a drop-in without tokens: remove the file instead");
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

}  // namespace rocmtune::boot
