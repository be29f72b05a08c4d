// UnitContext and EnvFileContext: the environment systemd gives a unit's processes, read from the
// files as the manager reads them. Sources, by step:
//   unit lookup      systemd.unit(5) "Unit File Load Path" (src/basic/path-lookup.c)
//   drop-ins         systemd.unit(5) "Description" (src/shared/dropin.c unit_file_find_dropin_paths,
//                    see DropInDirs); *.conf files ordered by file name, a same-named file in an
//                    earlier directory of that list hiding the later ones (conf_files_list_strv)
//   masked           a unit file that is a symlink to /dev/null or empty (systemctl(1) "mask")
//   Environment=     src/core/load-fragment.c config_parse_environ: an empty value resets the list
//   EnvironmentFile= the same file's config_parse_unit_env_file: "-" makes a missing file fine, an
//                    empty value resets the list; src/core/execute.c exec_context_load_environment
//                    fails the start for a file that cannot be loaded without "-"
//   order            src/core/exec-invoke.c build_environment/strv_env_merge: the manager's
//                    environment, then Environment=, then EnvironmentFile= (files win), then
//                    UnsetEnvironment= removes (systemd.exec(5) "Environment")
//   ExecStart=       systemd.service(5) "ExecStart=": an empty value resets the list; the first
//                    word after the prefixes "@-:+!" is the program; a name without "/" is looked
//                    up in the fixed path /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin
//                    (systemd.service(5) "Command lines", since v239)
//   manager          a system service sees only the manager's DefaultEnvironment=
//                    (systemd-system.conf(5): system.conf and system.conf.d/*.conf), not
//                    /etc/environment nor login shells; a user manager reads user.conf, then
//                    environment.d(5) (~/.config, /etc, /run, /usr/local/lib, /usr/lib).
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "program/context.h"
#include "program/unit_env.h"
#include "util/shell_words.h"

namespace rocmtune::program {
namespace {

constexpr size_t kMaxFileBytes = 256 * 1024;  // a unit, drop-in or env file; systemd's lines are < 1 MiB
constexpr size_t kMaxConfFiles = 128;         // drop-ins (or conf.d files) read for one unit
constexpr size_t kMaxEnvFiles = 32;           // EnvironmentFile= files read for one unit

std::vector<std::string> UnitDirs(bool user, std::string_view home) {
  if (!user)
    return {"etc/systemd/system.control",   "run/systemd/system.control",  "run/systemd/transient",
            "run/systemd/generator.early",  "etc/systemd/system",          "etc/systemd/system.attached",
            "run/systemd/system",           "run/systemd/system.attached", "run/systemd/generator",
            "usr/local/lib/systemd/system", "usr/lib/systemd/system",      "lib/systemd/system",
            "run/systemd/generator.late"};
  std::vector<std::string> dirs;
  if (!home.empty()) {
    dirs.push_back(sys::JoinPath(home, ".config/systemd/user.control"));
    dirs.push_back(sys::JoinPath(home, ".config/systemd/user"));
  }
  for (const char* d : {"etc/systemd/user", "run/systemd/user"}) dirs.emplace_back(d);
  if (!home.empty()) dirs.push_back(sys::JoinPath(home, ".local/share/systemd/user"));
  for (const char* d : {"usr/local/lib/systemd/user", "usr/lib/systemd/user", "lib/systemd/user"}) dirs.emplace_back(d);
  return dirs;
}

// The *.conf files of `dirs` by file name; the first directory holding a name wins. Bounded.
std::vector<std::string> ConfFiles(const sys::Root& root, const std::vector<std::string>& dirs,
                                   std::vector<std::string>& notes) {
  std::map<std::string, std::string> by_name;
  for (const std::string& dir : dirs) {
    auto names = root.ListDir(dir);
    if (!names) {
      if (names.error().code != ErrorCode::kNotFound && root.Exists(dir))
        notes.push_back(fmt::format("{} could not be listed: {}", root.Display(dir), names.error().message));
      continue;
    }
    for (const std::string& name : *names)
      if (name.size() > 5 && name.ends_with(".conf")) by_name.emplace(name, sys::JoinPath(dir, name));
  }
  std::vector<std::string> out;
  for (auto& [name, path] : by_name) {
    if (out.size() == kMaxConfFiles) {
      notes.push_back(fmt::format("only the first {} drop-ins are read", kMaxConfFiles));
      break;
    }
    out.push_back(std::move(path));
  }
  return out;
}

std::optional<std::string> ReadNoted(const sys::Root& root, const std::string& path, std::vector<std::string>& notes) {
  auto content = root.ReadFile(path, kMaxFileBytes);
  if (content) return std::move(*content);
  notes.push_back(fmt::format("{} could not be read: {}", root.Display(path), content.error().message));
  return std::nullopt;
}

// The assignments of one Environment=/DefaultEnvironment= value, appended to `list`.
void AddEnvironmentWords(const UnitAssignment& a, const std::string& file, const UnitNames& names,
                         std::vector<knobs::EnvSetting>& list, std::vector<std::string>& notes, const sys::Root& root) {
  const std::string place = root.Display(fmt::format("{}:{}", file, a.line));
  if (a.value.empty()) {  // "Empty assignment resets the list"
    if (!list.empty())
      notes.push_back(fmt::format("{}: an empty {}= drops the {} before it", place, a.key, list.size()));
    list.clear();
    return;
  }
  EnvironmentWords split = SplitEnvironmentValue(a.value);
  if (!split.complete)
    notes.push_back(fmt::format("{}: unbalanced quote or bad escape: systemd ignores the rest", place));
  for (const std::string& word : split.words) {
    size_t eq = word.find('=');
    if (eq == std::string::npos || !shell::IsName(word.substr(0, eq))) {
      notes.push_back(fmt::format("{}: \"{}\" is no assignment; systemd ignores it", place, shell::Short(word)));
      continue;
    }
    std::optional<std::string> resolved = ResolveSpecifiers(word, names);
    std::string name = word.substr(0, eq);
    if (!resolved) notes.push_back(fmt::format("{}: {} uses a specifier known only when the unit runs", place, name));
    list.push_back({file, a.line, name, resolved ? std::optional(resolved->substr(eq + 1)) : std::nullopt});
  }
}

// DefaultEnvironment= of the manager's configuration (systemd-system.conf(5)).
std::vector<knobs::EnvSetting> ManagerDefaults(const sys::Root& root, bool user, std::vector<std::string>& notes) {
  const std::string conf = user ? "user.conf" : "system.conf";
  std::vector<std::string> files = {"etc/systemd/" + conf};
  std::vector<std::string> dirs;
  for (const char* base : {"etc/systemd/", "run/systemd/", "usr/local/lib/systemd/", "usr/lib/systemd/"})
    dirs.push_back(std::string(base) + conf + ".d");
  for (std::string& f : ConfFiles(root, dirs, notes)) files.push_back(std::move(f));
  std::vector<knobs::EnvSetting> env;
  for (const std::string& file : files) {
    if (!root.Exists(file)) continue;
    auto content = ReadNoted(root, file, notes);
    if (!content) continue;
    for (const UnitAssignment& a : ParseUnitFile(*content))
      if (a.section == "Manager" && a.key == "DefaultEnvironment") AddEnvironmentWords(a, file, {}, env, notes, root);
  }
  return env;
}

// environment.d(5) for a user manager: values may expand ${VAR} (merge_env_file), so a '$' makes
// the value computed.
void AddEnvironmentD(const sys::Root& root, std::string_view home, std::vector<knobs::EnvSetting>& env,
                     std::vector<std::string>& notes) {
  std::vector<std::string> dirs;
  if (!home.empty()) dirs.push_back(sys::JoinPath(home, ".config/environment.d"));
  for (const char* d :
       {"etc/environment.d", "run/environment.d", "usr/local/lib/environment.d", "usr/lib/environment.d"})
    dirs.emplace_back(d);
  for (const std::string& file : ConfFiles(root, dirs, notes)) {
    auto content = ReadNoted(root, file, notes);
    if (!content) continue;
    auto parsed = ParseEnvFile(*content);
    if (!parsed) {
      notes.push_back(
          fmt::format("{}: {}; the user manager ignores the file", root.Display(file), parsed.error().message));
      continue;
    }
    for (knobs::EnvSetting& s : *parsed) {
      s.file = file;
      if (s.value && s.value->find('$') != std::string::npos) s.value.reset();
      env.push_back(std::move(s));
    }
  }
}

struct UnitFile {
  std::string path;  // root-relative
  bool masked = false;
  std::string alias;  // the name a symlinked unit file points to, when another
};

std::optional<UnitFile> FindUnitFile(const sys::Root& root, const std::vector<std::string>& dirs,
                                     const std::vector<std::string>& names) {
  for (const std::string& dir : dirs)
    for (const std::string& name : names) {
      std::string path = sys::JoinPath(dir, name);
      sys::EntryType type = root.TypeOf(path);
      if (type == sys::EntryType::kMissing) continue;
      UnitFile found{path, false, ""};
      if (type == sys::EntryType::kSymlink) {
        auto target = root.ReadLink(path);
        if (target && *target == "/dev/null") {
          found.masked = true;
          return found;
        }
        if (target) {
          std::string base = target->substr(target->rfind('/') + 1);
          if (base != name && IsUnitName(base)) found.alias = base;
        }
      }
      sys::EntryType resolved = root.ResolvedTypeOf(path);
      if (resolved == sys::EntryType::kOther) found.masked = true;  // /dev/null inside the root
      return found;
    }
  return std::nullopt;
}

// unit_file_expand_dropin_names: the name, its template's names, then the dash-truncated
// prefixes, most specific first ("foo-bar-baz.service", "foo-bar-.service", "foo-.service";
// "a-b@1.service": "a-b@.service", "a-.service", "a-@1.service", "a-@.service").
void ExpandDropInNames(const std::string& name, std::vector<std::string>& out) {
  out.push_back(name);
  const size_t dot = name.rfind('.');
  const std::string type = name.substr(dot);
  const std::string stem = name.substr(0, dot);
  const size_t at = stem.find('@');
  const bool instance = at != std::string::npos && at + 1 < stem.size();
  if (instance) ExpandDropInNames(stem.substr(0, at + 1) + type, out);
  std::string prefix = stem.substr(0, at);
  size_t dash = prefix.rfind('-');
  if (dash != std::string::npos && dash > 0 && dash + 1 == prefix.size()) {  // a trailing dash: chopped once
    prefix.pop_back();
    dash = prefix.rfind('-');
  }
  if (dash == std::string::npos || dash == 0) return;
  ExpandDropInNames(prefix.substr(0, dash + 1) + (instance ? "@" + stem.substr(at + 1) : "") + type, out);
}

std::vector<std::string> DropInNames(const std::string& name) {
  std::vector<std::string> out;
  ExpandDropInNames(name, out);
  return out;
}

// unit_file_find_dropin_paths: for the unit's name and then each alias, every search directory's
// candidates in DropInNames order; the top-level TYPE.d/ of every directory last ("the most
// generic"), so /usr/lib's NAME.d/x.conf hides /etc's service.d/x.conf.
std::vector<std::string> DropInDirs(const std::vector<std::string>& dirs, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& name : names)
    for (const std::string& dir : dirs)
      for (const std::string& candidate : DropInNames(name)) out.push_back(sys::JoinPath(dir, candidate + ".d"));
  const std::string type = names.front().substr(names.front().rfind('.') + 1);
  for (const std::string& dir : dirs) out.push_back(sys::JoinPath(dir, type + ".d"));
  return out;
}

std::string ExecSection(std::string_view unit) {
  if (unit.ends_with(".service")) return "Service";
  if (unit.ends_with(".socket")) return "Socket";
  if (unit.ends_with(".mount")) return "Mount";
  if (unit.ends_with(".swap")) return "Swap";
  return "";  // no processes of its own, no environment
}

void AddEnvironmentFile(const sys::Root& root, const std::string& unit, std::string spec, const std::string& where,
                        Context& ctx) {
  std::vector<knobs::EnvSetting>& env = ctx.env;
  std::vector<std::string>& notes = ctx.notes;
  bool optional = spec.starts_with('-');
  if (optional) spec.erase(0, 1);
  if (spec.find_first_of("*?[") != std::string::npos) {
    notes.push_back(fmt::format("{}: EnvironmentFile={} is a pattern; its files are not read", where, spec));
    return;
  }
  std::string rel = spec;
  while (rel.starts_with('/')) rel.erase(0, 1);
  auto content = root.ReadFile(rel, kMaxFileBytes);
  if (!content) {
    bool missing = content.error().code == ErrorCode::kNotFound;
    if (!optional) ctx.starts = false;
    notes.push_back(optional ? fmt::format("{}: EnvironmentFile=-{} {}; systemd goes on without it", where, spec,
                                           missing ? "is missing" : "cannot be read")
                             : fmt::format("{}: EnvironmentFile={} {}: systemd refuses to start {}", where, spec,
                                           missing ? "is missing" : "cannot be read (" + content.error().message + ")",
                                           unit));
    return;
  }
  auto parsed = ParseEnvFile(*content);
  if (!parsed) {
    if (!optional) ctx.starts = false;
    notes.push_back(fmt::format("{}: {}: {}; systemd {}", where, spec, parsed.error().message,
                                optional ? "ignores the file" : "refuses to start " + unit));
    return;
  }
  for (knobs::EnvSetting& s : *parsed) {
    s.file = rel;
    env.push_back(std::move(s));
  }
}

// The program of one ExecStart= value: "-/usr/bin/ollama serve" -> "/usr/bin/ollama". Empty for a
// specifier or a name not found in systemd's fixed path.
std::string ExecProgram(const sys::Root& root, std::string_view value) {
  while (!value.empty() && std::string_view("@-:+!").find(value.front()) != std::string_view::npos)
    value.remove_prefix(1);
  auto words = SplitEnvironmentValue(value).words;
  if (words.empty()) return {};
  const std::string& program = words.front();
  if (program.find('%') != std::string::npos) return {};
  if (program.starts_with('/')) return program;
  if (program.find('/') != std::string::npos) return {};
  for (const char* dir : {"usr/local/sbin", "usr/local/bin", "usr/sbin", "usr/bin"})
    if (root.Exists(sys::JoinPath(dir, program))) return "/" + sys::JoinPath(dir, program);
  return {};
}

}  // namespace

Result<Context> UnitContext(const sys::Root& root, std::string_view unit_arg, bool user, std::string_view home) {
  std::string unit(unit_arg);
  if (unit.find('.') == std::string::npos) unit += ".service";  // as systemctl does
  if (!IsUnitName(unit)) return Fail(ErrorCode::kInvalidArgument, fmt::format("\"{}\" is not a unit name", unit_arg));
  std::vector<std::string> candidates = {unit};  // the unit file, else its template's
  size_t at = unit.find('@');
  if (at != std::string::npos && unit[at + 1] != '.')
    candidates.push_back(unit.substr(0, at + 1) + unit.substr(unit.rfind('.')));
  const std::vector<std::string> dirs = UnitDirs(user, home);
  std::optional<UnitFile> file = FindUnitFile(root, dirs, candidates);
  if (!file)
    return Fail(ErrorCode::kNotFound,
                fmt::format("{}: no unit file in {}'s search path", unit, user ? "the user manager" : "systemd"));

  Context ctx;
  ctx.kind = user ? ContextKind::kUserUnit : ContextKind::kUnit;
  ctx.name = unit;
  if (file->masked) {
    ctx.starts = false;
    ctx.notes.push_back(fmt::format("{} is masked ({}): systemd will not start it", unit, root.Display(file->path)));
    return ctx;
  }
  auto content = root.ReadFile(file->path, kMaxFileBytes);
  if (!content) return Fail(content.error().code, content.error().message, content.error().errno_value);
  if (content->empty()) {
    ctx.starts = false;
    ctx.notes.push_back(
        fmt::format("{} is masked (an empty {}): systemd will not start it", unit, root.Display(file->path)));
    return ctx;
  }

  // The manager's environment first.
  ctx.env = ManagerDefaults(root, user, ctx.notes);
  if (user) AddEnvironmentD(root, home, ctx.env, ctx.notes);

  std::vector<std::string> names = {unit};
  if (!file->alias.empty()) names.push_back(file->alias);
  std::vector<std::pair<std::string, std::string>> sources = {{file->path, std::move(*content)}};
  for (const std::string& dropin : ConfFiles(root, DropInDirs(dirs, names), ctx.notes))
    if (auto text = ReadNoted(root, dropin, ctx.notes)) sources.emplace_back(dropin, std::move(*text));

  const std::string section = ExecSection(unit);
  const UnitNames unit_names{unit, home.empty() ? "" : "/" + std::string(home), user};
  std::vector<knobs::EnvSetting> environment;
  std::vector<std::pair<std::string, std::string>> env_files;  // spec, where
  std::vector<std::string> unset;
  for (const auto& [path, text] : sources)
    for (const UnitAssignment& a : ParseUnitFile(text)) {
      if (section.empty() || a.section != section) continue;
      if (a.key == "Environment") {
        AddEnvironmentWords(a, path, unit_names, environment, ctx.notes, root);
      } else if (a.key == "EnvironmentFile") {
        if (a.value.empty()) env_files.clear();
        else if (auto spec = ResolveSpecifiers(a.value, unit_names))
          env_files.emplace_back(*spec, root.Display(fmt::format("{}:{}", path, a.line)));
        else
          ctx.notes.push_back(fmt::format("{}:{}: EnvironmentFile={} names a file known only when the unit runs",
                                          root.Display(path), a.line, a.value));
      } else if (a.key == "ExecStart") {
        if (a.value.empty()) ctx.exec.clear();
        else if (ctx.exec.empty()) ctx.exec = ExecProgram(root, a.value);
      } else if (a.key == "UnsetEnvironment") {
        if (a.value.empty()) unset.clear();
        for (std::string& w : SplitEnvironmentValue(a.value).words) unset.push_back(std::move(w));
      }
    }
  for (knobs::EnvSetting& s : environment) ctx.env.push_back(std::move(s));
  if (env_files.size() > kMaxEnvFiles) {
    ctx.notes.push_back(
        fmt::format("only the first {} of {} EnvironmentFile= are read", kMaxEnvFiles, env_files.size()));
    env_files.resize(kMaxEnvFiles);
  }
  for (const auto& [spec, where] : env_files) AddEnvironmentFile(root, unit, spec, where, ctx);
  for (const std::string& u : unset) {
    size_t eq = u.find('=');
    std::erase_if(ctx.env, [&](const knobs::EnvSetting& s) {
      return eq == std::string::npos ? s.name == u : s.name == u.substr(0, eq) && s.value == u.substr(eq + 1);
    });
  }
  return ctx;
}

Result<Context> EnvFileContext(const sys::Root& root, std::string_view path) {
  std::string rel(path);
  while (rel.starts_with('/')) rel.erase(0, 1);
  auto content = root.ReadFile(rel, kMaxFileBytes);
  if (!content) return Fail(content.error().code, content.error().message, content.error().errno_value);
  Context ctx;
  ctx.kind = ContextKind::kEnvFile;
  ctx.name = root.Display(rel);
  auto parsed = ParseEnvFile(*content);
  if (!parsed) return Fail(ErrorCode::kInvalidData, fmt::format("{}: {}", root.Display(rel), parsed.error().message));
  for (knobs::EnvSetting& s : *parsed) {
    s.file = rel;
    ctx.env.push_back(std::move(s));
  }
  return ctx;
}

}  // namespace rocmtune::program
