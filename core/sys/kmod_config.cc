#include "sys/kmod_config.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

namespace rocmtune::sys {
namespace {

constexpr std::string_view kCmdlineFile = "proc/cmdline";

using OptionList = std::vector<std::pair<std::string, std::string>>;  // (module, options) as libkmod keeps them

// ---- modprobe.d lines, as kmod_config_parse() sees them ----------------------------------------

struct LogicalLine {
  std::string text;         // continuations joined, cut at the first NUL
  int first = 0, last = 0;  // physical line numbers; libkmod's messages use `last`
};

// libkmod's freadline_wrapped(): "\\\n" continues a line, a backslash before any other byte is
// dropped, a backslash at end of file becomes 0xff (getc()'s EOF stored in a char).
std::vector<LogicalLine> SplitLogicalLines(std::string_view raw) {
  std::vector<LogicalLine> lines;
  size_t i = 0;
  int physical = 0;
  while (i < raw.size()) {
    LogicalLine line;
    line.first = physical + 1;
    while (i < raw.size()) {
      char c = raw[i++];
      if (c == '\n') break;
      if (c == '\\') {
        if (i == raw.size()) {
          line.text.push_back('\xff');
          break;
        }
        c = raw[i++];
        if (c == '\n') {
          ++physical;
          continue;
        }
      }
      line.text.push_back(c);
    }
    line.last = ++physical;
    if (size_t nul = line.text.find('\0'); nul != std::string::npos) line.text.resize(nul);
    lines.push_back(std::move(line));
  }
  return lines;
}

// strtok_r() as kmod_config_parse() calls it.
class Tokenizer {
 public:
  explicit Tokenizer(std::string_view s) : s_(s) {}

  // strtok_r(NULL, "\t ", ...): consumes the one delimiter after the token.
  std::optional<std::string_view> Next() {
    while (pos_ < s_.size() && IsDelim(s_[pos_])) ++pos_;
    if (pos_ == s_.size()) return std::nullopt;
    size_t start = pos_;
    while (pos_ < s_.size() && !IsDelim(s_[pos_])) ++pos_;
    std::string_view token = s_.substr(start, pos_ - start);
    if (pos_ < s_.size()) ++pos_;
    return token;
  }
  // strtok_r(NULL, "\0", ...): the rest of the line, or nothing when it is empty.
  std::optional<std::string_view> Rest() {
    if (pos_ == s_.size()) return std::nullopt;
    std::string_view rest = s_.substr(pos_);
    pos_ = s_.size();
    return rest;
  }

 private:
  static bool IsDelim(char c) { return c == ' ' || c == '\t'; }
  std::string_view s_;
  size_t pos_ = 0;
};

enum class LineKind { kNothing, kOptions, kOtherCommand, kBad, kDeprecated };

struct Classified {
  LineKind kind = LineKind::kNothing;
  std::string command;
  std::string module, options;  // kOptions: the name as underscores() leaves it, the rest of the line
};

// kmod_config_parse()'s reading of one logical line (libkmod-config.c, kmod 30): what an
// `options` line gives kmod_config_add_options(), and the verdict that words `errors`. The unit
// tests (OptionsMatchLibkmod) and the integration test (modprobe_compare) check both against
// libkmod and `modprobe -c`.
Classified Classify(std::string_view text) {
  Classified out;
  if (text.empty() || text[0] == '#') return out;  // only column 0 starts a comment
  Tokenizer tokens(text);
  auto cmd = tokens.Next();
  if (!cmd) return out;
  out.command = std::string(*cmd);
  const std::string& command = out.command;
  auto valid_name = [](std::optional<std::string_view> name, std::string* normalised = nullptr) {
    std::string s(name.value_or(""));
    bool ok = name && Underscores(s);
    if (normalised) *normalised = std::move(s);
    return ok;
  };
  auto verdict = [&](bool ok, LineKind kind) {
    out.kind = ok ? kind : LineKind::kBad;
    return out;
  };
  if (command == "alias") {
    auto alias = tokens.Next();
    auto module = tokens.Next();
    return verdict(valid_name(alias) && valid_name(module), LineKind::kOtherCommand);
  }
  if (command == "blacklist") return verdict(valid_name(tokens.Next()), LineKind::kOtherCommand);
  if (command == "options" || command == "install" || command == "remove" || command == "softdep") {
    bool ok = valid_name(tokens.Next(), &out.module);
    auto rest = tokens.Rest();
    if (rest) out.options = std::string(*rest);
    return verdict(ok && rest, command == "options" ? LineKind::kOptions : LineKind::kOtherCommand);
  }
  out.kind = command == "include" || command == "config" ? LineKind::kDeprecated : LineKind::kBad;
  return out;
}

// ---- ReadModprobeConfig's steps -----------------------------------------------------------------

struct Entry {
  std::string module, options, file;
  int line = 0;
};

bool IsConfigName(std::string_view name) {
  // libkmod-config.c conf_files_filter_out(): kmod 30 reads *.alias too (module-init-tools' name).
  if (name.empty() || name[0] == '.' || name.size() < 6) return false;
  return name.ends_with(".conf") || name.ends_with(".alias");
}

// The files libkmod reads, in its order (conf_files_list): one list over all directories,
// sorted by basename; a basename taken by an earlier directory hides later ones even when the
// earlier entry cannot be read (a dangling symlink hides too). Directories are skipped.
std::vector<std::pair<std::string, std::string>> ListConfigFiles(const Root& root, std::vector<std::string>& errors) {
  std::map<std::string, std::string> by_name;  // std::string orders bytes as unsigned, like strcmp
  std::set<std::pair<dev_t, ino_t>> seen_dirs;
  for (std::string_view dir : kModprobeDirs) {
    auto fd = root.Open(dir, O_PATH);
    struct stat st {};
    if (!fd || ::fstat(fd->get(), &st) != 0) continue;               // a missing directory is normal
    if (!seen_dirs.insert({st.st_dev, st.st_ino}).second) continue;  // lib -> usr/lib
    if (S_ISREG(st.st_mode)) {  // libkmod reads a configuration path that is a file as one file
      by_name.emplace(std::string(dir.substr(dir.rfind('/') + 1)), std::string(dir));
      continue;
    }
    if (!S_ISDIR(st.st_mode)) continue;
    auto names = root.ListDir(dir);
    if (!names) {
      errors.push_back(names.error().message);
      continue;
    }
    for (const std::string& name : *names) {
      if (!IsConfigName(name)) continue;
      std::string rel = JoinPath(dir, name);
      if (root.ResolvedTypeOf(rel) == EntryType::kDirectory) {
        errors.push_back(fmt::format("Directories inside directories are not supported: {}", rel));
        continue;
      }
      by_name.emplace(name, std::move(rel));
    }
  }
  return {by_name.begin(), by_name.end()};
}

// One file's `options` entries, and `errors` in libkmod's own wording for the lines it skips.
std::vector<Entry> ReadFileOptions(const std::string& rel, std::string_view raw, std::vector<std::string>& errors) {
  std::vector<Entry> entries;
  for (const LogicalLine& line : SplitLogicalLines(raw)) {
    Classified c = Classify(line.text);
    if (c.kind == LineKind::kBad)
      errors.push_back(fmt::format("{} line {}: ignoring bad line starting with '{}'", rel, line.last, c.command));
    if (c.kind == LineKind::kDeprecated)
      errors.push_back(fmt::format("{}: command {} is deprecated and not parsed anymore", rel, c.command));
    if (c.kind == LineKind::kOptions) entries.push_back({std::move(c.module), std::move(c.options), rel, line.first});
  }
  return entries;
}

// Turns the modules' option strings into parameters. libkmod joins a module's options with
// single spaces (kmod_module_get_options) and the kernel parses that one string
// (kernel/params.c parse_args), so a quote can run on into the next line's options.
std::vector<ModuleOption> BuildOptions(const std::vector<Entry>& entries, const std::vector<std::string>& wanted,
                                       std::vector<std::string>& errors) {
  std::vector<std::string> modules;
  for (const Entry& e : entries) {
    bool requested = wanted.empty() || std::find(wanted.begin(), wanted.end(), e.module) != wanted.end();
    if (requested && std::find(modules.begin(), modules.end(), e.module) == modules.end()) modules.push_back(e.module);
  }
  struct Placed {
    size_t entry, offset;
    ModuleOption option;
  };
  std::vector<Placed> placed;
  for (const std::string& module : modules) {
    std::string joined;
    std::vector<std::pair<size_t, size_t>> starts;  // (offset in joined, entry index)
    for (size_t i = 0; i < entries.size(); ++i) {
      if (entries[i].module != module || entries[i].options.empty()) continue;
      if (!joined.empty()) joined += ' ';
      starts.emplace_back(joined.size(), i);
      joined += entries[i].options;
    }
    bool after_dashes = false;
    for (const ModuleArg& arg : SplitModuleArgs(joined)) {
      auto at = std::upper_bound(starts.begin(), starts.end(), std::pair(arg.offset, entries.size())) - 1;
      const Entry& e = entries[at->second];
      std::string where = e.line > 0 ? fmt::format("{} line {}", e.file, e.line) : e.file;
      std::string word = arg.value ? fmt::format("{}={}", arg.name, *arg.value) : arg.name;
      if (after_dashes) {
        errors.push_back(fmt::format("{}: {}: '{}' is ignored: the kernel stops at '--'", where, module, word));
        continue;
      }
      if (!arg.value && arg.name == "--") {  // parse_args() hands the rest back; load_module() ignores it
        after_dashes = true;
        errors.push_back(fmt::format("{}: {}: the kernel ignores every {} option after '--'", where, module, module));
        continue;
      }
      if (arg.name.empty() || arg.name[0] == '#') {
        errors.push_back(fmt::format(
            "{}: {}: '{}' is not a comment in modprobe.d: the kernel ignores it as an unknown parameter and "
            "applies the words after it",
            where, module, word));
        continue;
      }
      ModuleOption o{module, ParamName(arg.name), arg.value.value_or(""), !arg.value, e.file, e.line, 0};
      placed.push_back({at->second, arg.offset, std::move(o)});
    }
  }
  std::stable_sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
    return std::tie(a.entry, a.offset) < std::tie(b.entry, b.offset);
  });
  std::vector<ModuleOption> options;
  for (Placed& p : placed) {
    p.option.order = static_cast<int>(options.size());
    options.push_back(std::move(p.option));
  }
  return options;
}

}  // namespace

Result<ModprobeConfig> ReadModprobeConfig(const Root& root, std::span<const std::string_view> modules) {
  std::vector<std::string> wanted;
  for (std::string_view m : modules) {
    std::string name(m);
    Underscores(name);
    wanted.push_back(std::move(name));
  }

  ModprobeConfig config;
  std::vector<Entry> entries;
  for (const auto& [name, rel] : ListConfigFiles(root, config.errors)) {
    auto raw = root.ReadFile(rel);
    if (!raw && raw.error().code == ErrorCode::kTooLarge) return tl::unexpected(raw.error());
    if (!raw) {
      config.errors.push_back(fmt::format("{} is not read ({}); it still hides any {} in later directories", rel,
                                          raw.error().message, name));
      continue;
    }
    config.files.push_back(rel);
    for (Entry& e : ReadFileOptions(rel, *raw, config.errors)) entries.push_back(std::move(e));
  }

  // The command line comes last (kmod_config_new() parses it after the files), read the way
  // kmod 30 reads /proc/cmdline: the root's own, live or world.
  OptionList cmdline;
  if (auto raw = root.ReadFile(kCmdlineFile)) {
    cmdline = KernelCmdlineModuleOptions(*raw, &config.errors);
  } else if (raw.error().code != ErrorCode::kNotFound) {
    config.errors.push_back(raw.error().message);
  }
  for (auto& [module, options] : cmdline) entries.push_back({module, options, std::string(kCmdlineFile), 0});

  config.options = BuildOptions(entries, wanted, config.errors);
  return config;
}

std::optional<ModuleOption> Winning(const ModprobeConfig& config, std::string_view module, std::string_view name) {
  std::string m(module);
  Underscores(m);
  std::string n = ParamName(name);
  const ModuleOption* win = nullptr;
  for (const ModuleOption& o : config.options)
    if (o.module == m && o.name == n) win = &o;
  if (!win) return std::nullopt;
  return *win;
}

}  // namespace rocmtune::sys
