#include "sys/kmod_config.h"

#include <fcntl.h>
#include <libkmod.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

namespace rocmtune::sys {
namespace {

constexpr std::string_view kCmdlineFile = "proc/cmdline";

using KmodCtx = UniqueHandle<kmod_ctx, kmod_unref>;
using KmodConfigIter = UniqueHandle<kmod_config_iter, kmod_config_iter_free_iter>;
using OptionList = std::vector<std::pair<std::string, std::string>>;  // (module, options) as libkmod keeps them

// ---- modprobe.d lines, as kmod_config_parse() sees them ----------------------------------------

struct LogicalLine {
  std::string text;           // continuations joined, cut at the first NUL
  size_t begin = 0, end = 0;  // the raw bytes it came from
  int first = 0, last = 0;    // physical line numbers; libkmod's messages use `last`
};

// libkmod's freadline_wrapped(): "\\\n" continues a line, a backslash before any other byte is
// dropped, a backslash at end of file becomes 0xff (getc()'s EOF stored in a char).
std::vector<LogicalLine> SplitLogicalLines(std::string_view raw) {
  std::vector<LogicalLine> lines;
  size_t i = 0;
  int physical = 0;
  while (i < raw.size()) {
    LogicalLine line;
    line.begin = i;
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
    line.end = i;
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

// kmod_config_parse()'s verdict on one logical line. Only the kOptions verdict decides what
// libkmod is given; the others only word `errors`. The integration test (modprobe_compare)
// checks both against `modprobe -c`'s output and messages.
LineKind Classify(std::string_view text, std::string& command) {
  if (text.empty() || text[0] == '#') return LineKind::kNothing;  // only column 0 starts a comment
  Tokenizer tokens(text);
  auto cmd = tokens.Next();
  if (!cmd) return LineKind::kNothing;
  command = std::string(*cmd);
  auto valid_name = [](std::optional<std::string_view> name) {
    std::string s(name.value_or(""));
    return name && Underscores(s);
  };
  if (command == "alias") {
    auto alias = tokens.Next();
    auto module = tokens.Next();
    return valid_name(alias) && valid_name(module) ? LineKind::kOtherCommand : LineKind::kBad;
  }
  if (command == "blacklist") return valid_name(tokens.Next()) ? LineKind::kOtherCommand : LineKind::kBad;
  if (command == "options" || command == "install" || command == "remove" || command == "softdep") {
    bool ok = valid_name(tokens.Next()) && tokens.Rest();
    if (!ok) return LineKind::kBad;
    return command == "options" ? LineKind::kOptions : LineKind::kOtherCommand;
  }
  if (command == "include" || command == "config") return LineKind::kDeprecated;
  return LineKind::kBad;
}

// ---- libkmod ------------------------------------------------------------------------------------

// Where the copies libkmod reads live: mkdtemp() (mode 0700), removed on destruction.
//
// Why copies and not the root's paths: libkmod open()s what it is given, so a symlinked
// modprobe.d file would be followed on the host, out of a world root. Reading through Root
// confines and bounds the read and refuses FIFOs (libkmod would block on one); libkmod then
// parses exactly the bytes rocmtune checked. /proc/self/fd/N paths would avoid the copy but
// need /proc, which a chroot running maintainer scripts may not have.
class PrivateDir {
 public:
  PrivateDir() = default;
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  ~PrivateDir() {
    if (path_.empty()) return;
    ::unlink(File().c_str());
    ::rmdir(path_.c_str());
  }

  Result<bool> Create() {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = fmt::format("{}/rocmtune-kmod-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!::mkdtemp(tmpl.data())) {
      int err = errno;
      return Fail(ErrorCode::kIo, fmt::format("cannot create a private directory for libkmod ({}): {}", tmpl,
                                              std::strerror(err)), err);
    }
    path_ = std::move(tmpl);
    return true;
  }

  const std::string& path() const { return path_; }
  std::string File() const { return path_ + "/copy.conf"; }

  Result<std::string> Write(std::string_view content) const {
    std::string file = File();
    UniqueFd fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
    size_t done = 0;
    while (fd.valid() && done < content.size()) {
      ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      done += static_cast<size_t>(n);
    }
    if (!fd.valid() || done < content.size()) {
      int err = errno;
      return Fail(ErrorCode::kIo, fmt::format("{}: cannot write: {}", file, std::strerror(err)), err);
    }
    return file;
  }

 private:
  std::string path_;
};

// All `options` entries of a context, in libkmod's order.
Result<OptionList> ContextOptions(const std::string& dirname, const char* const* config_paths) {
  // kmod_new() parses the configuration and /proc/cmdline before a log function can be set;
  // the lines it would complain about never reach it (see ReadFileOptions), so its default
  // stderr logger stays quiet. A later kmod_set_log_fn() would capture nothing.
  KmodCtx ctx(kmod_new(dirname.c_str(), config_paths));
  if (!ctx) return Fail(ErrorCode::kIo, "libkmod: kmod_new() failed");
  KmodConfigIter it(kmod_config_get_options(ctx.get()));
  if (!it) return Fail(ErrorCode::kIo, "libkmod: kmod_config_get_options() failed");
  OptionList out;
  while (kmod_config_iter_next(it.get())) {
    const char* key = kmod_config_iter_get_key(it.get());
    const char* value = kmod_config_iter_get_value(it.get());
    out.emplace_back(key ? key : "", value ? value : "");
  }
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
    if (!fd || ::fstat(fd->get(), &st) != 0) continue;  // a missing directory is normal
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

// One file: libkmod parses a copy holding only the `options` lines it accepts (every other line
// blanked, so line numbers stay), and the `errors` get libkmod's own wording for the rest.
Result<std::vector<Entry>> ReadFileOptions(const PrivateDir& dir, const OptionList& host_cmdline,
                                           const std::string& rel, std::string_view raw,
                                           std::vector<std::string>& errors) {
  std::string copy;
  std::vector<int> kept_lines;
  for (const LogicalLine& line : SplitLogicalLines(raw)) {
    std::string command;
    LineKind kind = Classify(line.text, command);
    if (kind == LineKind::kBad)
      errors.push_back(fmt::format("{} line {}: ignoring bad line starting with '{}'", rel, line.last, command));
    if (kind == LineKind::kDeprecated)
      errors.push_back(fmt::format("{}: command {} is deprecated and not parsed anymore", rel, command));
    std::string_view bytes = raw.substr(line.begin, line.end - line.begin);
    if (kind == LineKind::kOptions) {
      copy.append(bytes);
      kept_lines.push_back(line.first);
    } else {
      copy.append(static_cast<size_t>(std::count(bytes.begin(), bytes.end(), '\n')), '\n');
    }
  }
  if (kept_lines.empty()) return std::vector<Entry>{};

  auto path = dir.Write(copy);
  if (!path) return tl::unexpected(path.error());
  const char* paths[] = {path->c_str(), nullptr};
  auto all = ContextOptions(dir.path(), paths);
  if (!all) return tl::unexpected(all.error());
  // kmod_new() appended the host's command line options after the file's: take them off.
  if (all->size() < host_cmdline.size() ||
      !std::equal(host_cmdline.begin(), host_cmdline.end(), all->end() - static_cast<std::ptrdiff_t>(host_cmdline.size())))
    return Fail(ErrorCode::kInvalidData, fmt::format("libkmod: {}: the host's command line options are not last", rel));
  all->resize(all->size() - host_cmdline.size());

  bool lines_known = all->size() == kept_lines.size();
  if (!lines_known)
    errors.push_back(fmt::format("{}: libkmod read {} options lines where rocmtune expected {}; line numbers unknown",
                                 rel, all->size(), kept_lines.size()));
  std::vector<Entry> entries;
  for (size_t i = 0; i < all->size(); ++i)
    entries.push_back({(*all)[i].first, (*all)[i].second, rel, lines_known ? kept_lines[i] : 0});
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
  std::stable_sort(placed.begin(), placed.end(),
                   [](const Placed& a, const Placed& b) { return std::tie(a.entry, a.offset) < std::tie(b.entry, b.offset); });
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

  PrivateDir dir;
  if (auto made = dir.Create(); !made) return tl::unexpected(made.error());
  // Every kmod_new() merges the host's /proc/cmdline; a context without files shows what it adds.
  const char* no_paths[] = {nullptr};
  auto host_cmdline = ContextOptions(dir.path(), no_paths);
  if (!host_cmdline) return tl::unexpected(host_cmdline.error());

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
    auto file_entries = ReadFileOptions(dir, *host_cmdline, rel, *raw, config.errors);
    if (!file_entries) return tl::unexpected(file_entries.error());
    for (Entry& e : *file_entries) entries.push_back(std::move(e));
  }

  // The command line comes last (kmod_config_new() parses it after the files). On the live
  // system libkmod's own reading of it is the truth; for a world, its proc/cmdline is read the
  // way kmod 30 reads /proc/cmdline.
  OptionList cmdline;
  if (root.IsLive()) {
    cmdline = std::move(*host_cmdline);
  } else if (auto raw = root.ReadFile(kCmdlineFile)) {
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
