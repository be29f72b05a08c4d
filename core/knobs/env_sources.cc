#include "knobs/env_sources.h"

#include <algorithm>

#include <fmt/format.h>

#include "knobs/env_backend.h"
#include "plan/owned_paths.h"
#include "util/shell_words.h"
#include "util/text.h"

namespace rocmtune::knobs {
namespace {

constexpr size_t kMaxSourceBytes = 1 << 20;

bool IsNameChar(char c, bool first) {
  return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (!first && c >= '0' && c <= '9');
}

// A value as pam_env (/etc/environment) or environment.d reads it when it is a literal: one
// level of matching quotes removed. These files are KEY=VALUE lists, not shell.
std::string ListValue(std::string_view v) {
  v = text::Trim(v);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
  return std::string(v);
}

// NUL bytes dropped (as for every other source) and CRLF read as LF: a script saved on Windows
// would give its values a trailing CR in the shell, which the status would only show as noise.
std::string CleanScript(std::string_view content) {
  std::string out;
  for (size_t i = 0; i < content.size(); ++i) {
    if (content[i] == '\0' || (content[i] == '\r' && i + 1 < content.size() && content[i + 1] == '\n')) continue;
    out += content[i];
  }
  while (!out.empty() && out.back() == '\r') out.pop_back();
  return out;
}

// The assignments a shell would make running `content`, with the lexer every shell-syntax file
// reader shares (util/shell_words.h), so quotes, escapes and `#` inside quotes read as sh reads
// them. A value that needs the shell (an expansion, or a construct the lexer does not model
// inside the value) is nullopt. Commands that only look like assignments (`A=1 cmd`, `echo
// A=1`) set nothing in the shell and are not reported.
std::vector<EnvSetting> ScriptSettings(std::string_view content) {
  std::vector<EnvSetting> out;
  for (const shell::Command& cmd : shell::ParseScript(CleanScript(content))) {
    if (!cmd.unsupported.empty() && (cmd.assignments.empty() || cmd.assignments.back().complete)) continue;
    for (const shell::Assignment& a : cmd.assignments)
      out.push_back({"", a.line, a.name, a.complete ? shell::LiteralValue(a.value) : std::nullopt});
  }
  return out;
}

}  // namespace

std::vector<EnvSetting> ParseEnvSource(std::string_view content, bool shell) {
  std::vector<EnvSetting> settings;
  if (shell) {
    settings = ScriptSettings(content);
  } else {
    int number = 0;
    for (std::string_view line : text::SplitLines(content)) {
      ++number;
      if (auto s = ParseEnvAssignment(line, false)) {
        s->line = number;
        settings.push_back(std::move(*s));
      }
    }
  }
  return settings;
}

std::vector<EnvSetting> ReadEnvSource(const sys::Root& root, const EnvSource& source) {
  auto content = root.ReadFile(source.path, kMaxSourceBytes);
  if (!content) return {};  // missing, or unreadable: a status finding (UnreadableFileFindings)
  std::vector<EnvSetting> settings = ParseEnvSource(*content, source.shell);
  for (EnvSetting& s : settings) s.file = source.path;
  return settings;
}

namespace {

void ReadSource(const sys::Root& root, const EnvSource& source, std::vector<EnvSetting>& out) {
  for (EnvSetting& s : ReadEnvSource(root, source)) out.push_back(std::move(s));
}

void AddDirectory(const sys::Root& root, std::string_view dir, std::string_view suffix, bool shell,
                  std::vector<EnvSource>& out) {
  auto names = root.ListDir(dir);
  if (!names) return;
  for (const std::string& name : *names) {
    if (name.size() <= suffix.size() || !name.ends_with(suffix)) continue;
    std::string rel = sys::JoinPath(dir, name);
    if (rel != plan::kEnvironmentDropIn && rel != plan::kProfileDropIn) out.push_back({std::move(rel), shell});
  }
}

}  // namespace

std::optional<EnvSetting> ParseEnvAssignment(std::string_view line, bool shell) {
  if (shell) {
    std::vector<EnvSetting> settings = ScriptSettings(line);
    if (settings.empty()) return std::nullopt;
    return settings.front();
  }
  std::string clean = text::Clean(line);
  std::string_view l = clean;
  if (l.empty() || l.front() == '#') return std::nullopt;
  for (std::string_view prefix : {"export ", "export\t"}) {  // pam_env skips it too
    if (l.starts_with(prefix)) l = text::Trim(l.substr(prefix.size()));
  }
  size_t i = 0;
  while (i < l.size() && IsNameChar(l[i], i == 0)) ++i;
  if (i == 0 || i >= l.size() || l[i] != '=') return std::nullopt;
  EnvSetting s;
  s.name = std::string(l.substr(0, i));
  s.value = ListValue(l.substr(i + 1));
  return s;
}

std::vector<EnvSource> ForeignEnvSources(const sys::Root& root) {
  std::vector<EnvSource> out;
  out.push_back({"etc/environment", false});
  AddDirectory(root, "usr/lib/environment.d", ".conf", false, out);
  AddDirectory(root, "etc/environment.d", ".conf", false, out);
  out.push_back({"etc/profile", true});
  AddDirectory(root, "etc/profile.d", ".sh", true, out);
  out.push_back({"etc/bash.bashrc", true});
  return out;
}

std::vector<EnvSource> OwnedEnvSources() {
  return {{std::string(plan::kEnvironmentDropIn), false}, {std::string(plan::kProfileDropIn), true}};
}

std::vector<EnvSetting> ForeignEnvSettings(const sys::Root& root) {
  std::vector<EnvSetting> out;
  for (const EnvSource& source : ForeignEnvSources(root)) ReadSource(root, source, out);
  return out;
}

std::vector<EnvSource> UserEnvSources(const sys::Root& root, std::string_view home) {
  std::vector<EnvSource> out;
  if (home.empty() || home == ".") return out;  // no home (a system user): nothing of its own
  AddDirectory(root, sys::JoinPath(home, ".config/environment.d"), ".conf", false, out);
  for (std::string_view shell_file :
       {".profile", ".bash_profile", ".bash_login", ".bashrc", ".zshenv", ".zprofile", ".zshrc"})
    out.push_back({sys::JoinPath(home, shell_file), true});
  return out;
}

std::vector<EnvSetting> UserEnvSettings(const sys::Root& root, std::string_view home) {
  std::vector<EnvSetting> out;
  for (const EnvSource& source : UserEnvSources(root, home)) ReadSource(root, source, out);
  return out;
}

std::vector<EnvSetting> ProcessEnvSettings(const std::vector<std::string>& entries,
                                           bool (*keep)(std::string_view name)) {
  std::vector<EnvSetting> out;
  for (const std::string& entry : entries) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string name = entry.substr(0, eq);
    if (!keep(name)) continue;
    out.push_back({"", 0, std::move(name), entry.substr(eq + 1)});
  }
  return out;
}

std::string SettingPlace(const sys::Root& root, const EnvSetting& s) {
  if (s.file.empty()) return "the environment of this process";
  return s.line ? root.Display(fmt::format("{}:{}", s.file, s.line)) : root.Display(s.file);
}

}  // namespace rocmtune::knobs
