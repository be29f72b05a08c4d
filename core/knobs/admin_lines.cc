#include "knobs/admin_lines.h"

#include <map>

#include <fmt/format.h>

#include "knowledge/env_vars.h"
#include "plan/admin_lines.h"
#include "util/shell_words.h"

namespace rocmtune::knobs {
namespace {

constexpr size_t kMaxFileBytes = 256 * 1024;  // the helper's limit for any file it writes

// Line `number` (1-based) of `content`, split at every '\n' exactly; nullopt past the end.
std::optional<std::string_view> LineAt(std::string_view content, size_t number) {
  size_t start = 0;
  for (size_t n = 1; n < number; ++n) {
    size_t nl = content.find('\n', start);
    if (nl == std::string_view::npos) return std::nullopt;
    start = nl + 1;
  }
  size_t end = content.find('\n', start);
  return content.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
}

bool HasControl(std::string_view line) {
  if (line.ends_with('\r')) line.remove_suffix(1);  // a CRLF file keeps its line ends
  for (char c : line)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) return true;
  return false;
}

std::string Where(const sys::Root& root, const EnvSetting& s) {
  return root.Display(fmt::format("{}:{}", s.file, s.line));
}

}  // namespace

Result<std::string> SoleAssignment(plan::AdminLineFile kind, std::string_view content, size_t number) {
  auto line = LineAt(content, number);
  if (!line) return Fail(ErrorCode::kInvalidArgument, fmt::format("there is no line {}", number));
  if (HasControl(*line)) return Fail(ErrorCode::kInvalidArgument, "the line holds a control character or NUL");
  std::string_view text = *line;
  if (text.ends_with('\r')) text.remove_suffix(1);
  if (kind == plan::AdminLineFile::kEnvList) {
    auto setting = ParseEnvAssignment(text, false);
    if (!setting) return Fail(ErrorCode::kInvalidArgument, "the line sets no variable");
    return setting->name;
  }
  // A line continued from the one before belongs to that line's command: commenting it out would
  // change that command (`export A=1 \` then `B=2` would export a word ':').
  if (number > 1) {
    std::string_view previous = *LineAt(content, number - 1);
    if (previous.ends_with('\r')) previous.remove_suffix(1);
    size_t backslashes = 0;
    while (backslashes < previous.size() && previous[previous.size() - 1 - backslashes] == '\\') ++backslashes;
    if (backslashes % 2 == 1) return Fail(ErrorCode::kInvalidArgument, "the line continues the line before it");
  }
  std::vector<shell::Command> commands = shell::ParseScript(text);
  if (commands.size() != 1 || !commands[0].unsupported.empty() || commands[0].assignments.size() != 1 ||
      !commands[0].assignments[0].complete) {
    std::string names;
    size_t count = 0;
    for (const shell::Command& c : commands)
      for (const shell::Assignment& a : c.assignments) {
        names += fmt::format("{}{}", names.empty() ? "" : ", ", a.name);
        ++count;
      }
    return Fail(ErrorCode::kInvalidArgument, count > 1 ? fmt::format("the line sets more than one variable ({})", names)
                                                       : std::string("the line does more than one plain assignment"));
  }
  return commands[0].assignments[0].name;
}

Result<void> CheckCommentable(const sys::Root& root, const EnvSetting& setting, std::string_view content) {
  const std::string at = Where(root, setting);
  auto refuse = [&](std::string_view why) {
    return Fail(
        ErrorCode::kInvalidArgument,
        fmt::format("{} sets {}: {}; rocmtune does not edit it, remove it there by hand", at, setting.name, why));
  };
  std::optional<plan::AdminLineFile> kind = plan::AdminLineFileOf(setting.file);
  if (!kind)
    return refuse(
        "--admin-lines comments out lines only in /etc/environment, /etc/environment.d/*.conf and "
        "/etc/profile.d/*.sh");
  if (root.TypeOf(setting.file) != sys::EntryType::kFile) return refuse("not a regular file (a symlink?)");
  if (content.size() > kMaxFileBytes) return refuse("the file is larger than 256 KiB");
  auto sole = SoleAssignment(*kind, content, static_cast<size_t>(setting.line));
  if (!sole) return refuse(sole.error().message);
  if (*sole != setting.name) return refuse(fmt::format("the line sets {}", *sole));
  return {};
}

void PlanCommentOut(const sys::Root& root, std::string_view name, const std::vector<EnvSetting>& settings,
                    plan::Plan& plan) {
  std::map<std::string, std::vector<const EnvSetting*>> by_file;
  for (const EnvSetting& s : settings)
    if (s.name == name) by_file[s.file].push_back(&s);
  const std::string key = fmt::format("env.{}", name);
  for (const auto& [file, lines] : by_file) {
    auto content = root.ReadFile(file, kMaxFileBytes + 1);
    if (!content) {
      plan.refused.push_back({key, fmt::format("{}: {}", root.Display(file), content.error().message), ""});
      continue;
    }
    if (lines.size() > 1) {
      std::string numbers;
      for (const EnvSetting* s : lines) numbers += fmt::format("{}{}", numbers.empty() ? "" : ", ", s->line);
      plan.refused.push_back({key,
                              fmt::format("{} sets {} on lines {}: --admin-lines comments out one line per file; "
                                          "remove the others there by hand",
                                          root.Display(file), name, numbers),
                              ""});
      continue;
    }
    const EnvSetting& s = *lines.front();
    if (auto ok = CheckCommentable(root, s, *content); !ok) {
      plan.refused.push_back({key, ok.error().message, ""});
      continue;
    }
    plan::AdminLineFile kind = *plan::AdminLineFileOf(file);
    std::string_view line = *LineAt(*content, static_cast<size_t>(s.line));
    size_t start = static_cast<size_t>(line.data() - content->data());
    plan::Op op;
    op.kind = plan::OpKind::kWriteFile;
    op.backend = plan::BackendId::kEnv;
    op.path = file;
    op.before = *content;
    op.after = content->substr(0, start) + plan::CommentOut(kind, line) + content->substr(start + line.size());
    op.reason =
        fmt::format("comment out the admin's line {} ({}), as --admin-lines asks; revert puts it back", s.line, name);
    plan.ops.push_back(std::move(op));
  }
}

void PlanRestoreAdminLines(const sys::Root& root, plan::Plan& plan, std::vector<std::string>& keys) {
  std::vector<EnvSource> sources = ForeignEnvSources(root);
  for (const EnvSource& source : sources) {
    std::optional<plan::AdminLineFile> kind = plan::AdminLineFileOf(source.path);
    if (!kind || root.TypeOf(source.path) != sys::EntryType::kFile) continue;
    auto content = root.ReadFile(source.path, kMaxFileBytes);
    if (!content) continue;
    std::string after;
    std::vector<size_t> numbers;
    size_t start = 0;
    for (size_t number = 1;; ++number) {
      size_t nl = content->find('\n', start);
      std::string_view line = std::string_view(*content).substr(start, nl == std::string::npos ? nl : nl - start);
      std::optional<std::string_view> original = plan::CommentedOriginal(*kind, line);
      auto name = original ? SoleAssignment(*kind, *original, 1) : Result<std::string>();
      if (original && name && knowledge::EnvVars::Builtin().Find(*name)) {
        after += *original;
        numbers.push_back(number);
        keys.push_back(fmt::format("env.{}", *name));
      } else {
        after += line;
      }
      if (nl == std::string::npos) break;
      after += '\n';
      start = nl + 1;
    }
    if (numbers.empty()) continue;
    std::string shown;
    for (size_t n : numbers) shown += fmt::format("{}{}", shown.empty() ? "" : ", ", n);
    plan::Op op;
    op.kind = plan::OpKind::kWriteFile;
    op.backend = plan::BackendId::kEnv;
    op.path = source.path;
    op.before = *content;
    op.after = std::move(after);
    op.reason = fmt::format("put back the admin's line {} that rocmtune commented out", shown);
    plan.ops.push_back(std::move(op));
  }
}

}  // namespace rocmtune::knobs
