#include "knobs/admin_lines.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "knowledge/env_vars.h"
#include "plan/admin_lines.h"
#include "plan/owned_paths.h"
#include "sys/module_args.h"
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

// The modules whose options rocmtune manages (the modprobe backend's).
constexpr std::string_view kAdminModprobeDir = "etc/modprobe.d";

constexpr std::string_view kAdminModules[] = {"amdgpu", "ttm", "amdttm"};

// A modprobe.d line as libkmod reads it (sys/kmod_config.cc, kmod_config_parse()): `options`,
// the module, then the option string the kernel splits (lib/cmdline.c next_arg). Only a line
// whose meaning is that line alone: a backslash joins lines or escapes a byte
// (freadline_wrapped()), and an odd number of quotes runs on into the module's next options
// (libkmod joins them with a space), so either makes commenting it out change other lines.
Result<std::string> SoleModuleOption(std::string_view content, size_t number, std::string_view text) {
  if (number > 1 && LineAt(content, number - 1)->ends_with('\\'))
    return Fail(ErrorCode::kInvalidArgument, "the line continues the line before it");
  if (text.find('\\') != std::string_view::npos)
    return Fail(ErrorCode::kInvalidArgument, "the line holds a backslash (libkmod joins or escapes there)");
  if (std::count(text.begin(), text.end(), '"') % 2 != 0)
    return Fail(ErrorCode::kInvalidArgument, "the line has an unclosed quote (it runs on into other options)");
  auto word = [&text](size_t& pos) {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
    size_t start = pos;
    while (pos < text.size() && text[pos] != ' ' && text[pos] != '\t') ++pos;
    return text.substr(start, pos - start);
  };
  size_t pos = 0;
  if (text.starts_with('#') || word(pos) != "options")
    return Fail(ErrorCode::kInvalidArgument, "the line is not an `options` line");
  std::string module(word(pos));
  if (!sys::Underscores(module) ||
      std::find(std::begin(kAdminModules), std::end(kAdminModules), module) == std::end(kAdminModules))
    return Fail(ErrorCode::kInvalidArgument, "the line sets options of a module rocmtune does not manage");
  std::vector<sys::ModuleArg> args = sys::SplitModuleArgs(text.substr(pos));
  if (args.size() != 1 || args[0].name.empty() || args[0].name.starts_with('#') || args[0].name == "--") {
    std::string names;
    for (const sys::ModuleArg& a : args)
      names += fmt::format("{}{}.{}", names.empty() ? "" : ", ", module, sys::ParamName(a.name));
    return Fail(ErrorCode::kInvalidArgument,
                args.size() > 1 ? fmt::format("the line sets more than one option ({}): commenting it out would "
                                              "unset the others too",
                                              names)
                                : std::string("the line sets no option"));
  }
  return fmt::format("{}.{}", module, sys::ParamName(args[0].name));
}

}  // namespace

Result<std::string> SoleAssignment(plan::AdminLineFile kind, std::string_view content, size_t number) {
  auto line = LineAt(content, number);
  if (!line) return Fail(ErrorCode::kInvalidArgument, fmt::format("there is no line {}", number));
  if (HasControl(*line)) return Fail(ErrorCode::kInvalidArgument, "the line holds a control character or NUL");
  std::string_view text = *line;
  if (text.ends_with('\r')) text.remove_suffix(1);
  if (kind == plan::AdminLineFile::kModprobe) return SoleModuleOption(content, number, text);
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

namespace {

// Why `setting`'s line cannot be commented out, with `key` what the caller asked for; `name`
// is what SoleAssignment must find there ("NAME" for env, "module.param" for modprobe.d).
Result<void> CheckLine(const sys::Root& root, const EnvSetting& setting, std::string_view key, std::string_view content,
                       bool module) {
  const std::string at = Where(root, setting);
  auto refuse = [&](std::string_view why) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("{} sets {}: {}; rocmtune does not edit it, remove it there by hand", at, key, why));
  };
  std::optional<plan::AdminLineFile> kind = plan::AdminLineFileOf(setting.file);
  if (module && kind != plan::AdminLineFile::kModprobe) {
    // modprobe.d(5): a file in /etc/modprobe.d hides the same name in the package directories.
    return refuse(fmt::format(
        "--admin-lines comments out module options only in /etc/modprobe.d/*.conf, the admin's; /{} belongs to "
        "a package (or is generated), and a file of the same name in /etc/modprobe.d overrides it",
        setting.file.substr(0, setting.file.rfind('/'))));
  }
  if (!kind || (!module && kind == plan::AdminLineFile::kModprobe))
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

// The ops commenting out each of `settings` (lines setting `key`, named `setting.name` as
// SoleAssignment names them), one per file; refusals naming file:line go to `plan`.
void PlanLines(const sys::Root& root, const std::string& key, const std::vector<EnvSetting>& settings, bool module,
               plan::Plan& plan) {
  std::map<std::string, std::vector<const EnvSetting*>> by_file;
  for (const EnvSetting& s : settings) by_file[s.file].push_back(&s);
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
                                          root.Display(file), key, numbers),
                              ""});
      continue;
    }
    const EnvSetting& s = *lines.front();
    if (auto ok = CheckLine(root, s, key, *content, module); !ok) {
      plan.refused.push_back({key, ok.error().message, ""});
      continue;
    }
    plan::AdminLineFile kind = *plan::AdminLineFileOf(file);
    std::string_view line = *LineAt(*content, static_cast<size_t>(s.line));
    size_t start = static_cast<size_t>(line.data() - content->data());
    plan::Op op;
    op.kind = plan::OpKind::kWriteFile;
    op.backend = module ? plan::BackendId::kModprobe : plan::BackendId::kEnv;
    op.path = file;
    op.before = *content;
    op.after = content->substr(0, start) + plan::CommentOut(kind, line) + content->substr(start + line.size());
    op.reason =
        fmt::format("comment out the admin's line {} ({}), as --admin-lines asks; revert puts it back", s.line, key);
    plan.ops.push_back(std::move(op));
  }
}

}  // namespace

Result<void> CheckCommentable(const sys::Root& root, const EnvSetting& setting, std::string_view content) {
  return CheckLine(root, setting, setting.name, content, false);
}

Result<void> CheckModuleCommentable(const sys::Root& root, const sys::ModuleOption& option, std::string_view content) {
  EnvSetting s{option.file, option.line, fmt::format("{}.{}", option.module, option.name), std::nullopt};
  return CheckLine(root, s, s.name, content, true);
}

void PlanCommentOut(const sys::Root& root, std::string_view name, const std::vector<EnvSetting>& settings,
                    plan::Plan& plan) {
  std::vector<EnvSetting> lines;
  for (const EnvSetting& s : settings)
    if (s.name == name) lines.push_back(s);
  PlanLines(root, fmt::format("env.{}", name), lines, false, plan);
}

bool PlanCommentOutModule(const sys::Root& root, std::string_view module, std::string_view name,
                          const sys::ModprobeConfig& config, plan::Plan& plan) {
  std::vector<EnvSetting> lines;
  // Spelled as ReadModprobeConfig spells them: '-' as '_' (libkmod's underscores(), parameq()).
  std::string mod(module);
  std::replace(mod.begin(), mod.end(), '-', '_');
  const std::string param = sys::ParamName(name);
  const std::string key = fmt::format("{}.{}", mod, param);
  for (const sys::ModuleOption& o : config.options)
    if (o.module == mod && o.name == param && o.file != "proc/cmdline" && o.file != plan::kModprobeDropIn)
      lines.push_back({o.file, o.line, key, o.value});
  size_t ops = plan.ops.size();
  PlanLines(root, key, lines, true, plan);
  return plan.ops.size() > ops;
}

void PlanRestoreAdminLines(const sys::Root& root, plan::Plan& plan, std::vector<std::string>& keys) {
  std::vector<EnvSource> sources = ForeignEnvSources(root);
  // The admin's modprobe.d files, where `unset amdgpu.X --admin-lines` comments out a line.
  if (auto names = root.ListDir(kAdminModprobeDir))
    for (const std::string& name : *names) sources.push_back({fmt::format("{}/{}", kAdminModprobeDir, name), false});
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
      const bool module = *kind == plan::AdminLineFile::kModprobe;
      if (original && name && (module || knowledge::EnvVars::Builtin().Find(*name))) {
        after += *original;
        numbers.push_back(number);
        keys.push_back(module ? *name : fmt::format("env.{}", *name));
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
    op.backend = *kind == plan::AdminLineFile::kModprobe ? plan::BackendId::kModprobe : plan::BackendId::kEnv;
    op.path = source.path;
    op.before = *content;
    op.after = std::move(after);
    op.reason = fmt::format("put back the admin's line {} that rocmtune commented out", shown);
    plan.ops.push_back(std::move(op));
  }
}

}  // namespace rocmtune::knobs
