#include "knobs/env_sources.h"

#include <algorithm>

#include "knobs/env_backend.h"
#include "util/text.h"

namespace rocmtune::knobs {
namespace {

constexpr size_t kMaxSourceBytes = 1 << 20;

bool IsNameChar(char c, bool first) {
  return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (!first && c >= '0' && c <= '9');
}

// A value as a shell or pam_env would see it when it is a literal: one level of matching
// quotes removed. Shell values that expand something are not literals.
std::optional<std::string> Literal(std::string_view v, bool shell) {
  v = text::Trim(v);
  if (shell && v.find_first_of("$`") != std::string_view::npos) return std::nullopt;
  if (shell) {
    // `NAME=value # comment` and `NAME=value; other` end at the comment or separator.
    size_t end = v.find_first_of(";&|");
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.find(v.front(), 1) != std::string_view::npos) {
      end = v.find(v.front(), 1) + 1;
    }
    v = text::Trim(v.substr(0, std::min(end, v.size())));
    if (size_t hash = v.find(" #"); hash != std::string_view::npos) v = text::Trim(v.substr(0, hash));
  }
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
  return std::string(v);
}

void ReadSource(const sys::Root& root, const EnvSource& source, std::vector<EnvSetting>& out) {
  auto content = root.ReadFile(source.path, kMaxSourceBytes);
  if (!content) return;  // missing, or unreadable: a status finding (UnreadableFileFindings)
  int number = 0;
  for (std::string_view line : text::SplitLines(*content)) {
    ++number;
    if (auto s = ParseEnvAssignment(line, source.shell)) {
      s->file = source.path;
      s->line = number;
      out.push_back(std::move(*s));
    }
  }
}

void AddDirectory(const sys::Root& root, std::string_view dir, std::string_view suffix, bool shell,
                  std::vector<EnvSource>& out) {
  auto names = root.ListDir(dir);
  if (!names) return;
  for (const std::string& name : *names) {
    if (name.size() <= suffix.size() || !name.ends_with(suffix)) continue;
    std::string rel = sys::JoinPath(dir, name);
    if (rel != kEnvironmentDropIn && rel != kProfileDropIn) out.push_back({std::move(rel), shell});
  }
}

}  // namespace

std::optional<EnvSetting> ParseEnvAssignment(std::string_view line, bool shell) {
  line = text::Trim(line);
  std::string clean;
  for (char c : line)
    if (c != '\0') clean += c;
  std::string_view l = clean;
  if (l.empty() || l.front() == '#') return std::nullopt;
  for (std::string_view prefix : {"export ", "export\t"}) {
    if (l.starts_with(prefix)) l = text::Trim(l.substr(prefix.size()));
  }
  size_t i = 0;
  while (i < l.size() && IsNameChar(l[i], i == 0)) ++i;
  if (i == 0 || i >= l.size() || l[i] != '=') return std::nullopt;
  EnvSetting s;
  s.name = std::string(l.substr(0, i));
  s.value = Literal(l.substr(i + 1), shell);
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

std::vector<EnvSetting> ForeignEnvSettings(const sys::Root& root) {
  std::vector<EnvSetting> out;
  for (const EnvSource& source : ForeignEnvSources(root)) ReadSource(root, source, out);
  return out;
}

}  // namespace rocmtune::knobs
