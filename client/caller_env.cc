#include "client/caller_env.h"

#include <pwd.h>
#include <unistd.h>

#include <string>
#include <string_view>

#include "knobs/setting_findings.h"
#include "util/text.h"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX, unistd.h declares it only with _GNU_SOURCE

namespace rocmtune::client {

namespace {

// The home directory of the user running this, root-relative: from the root's etc/passwd (a
// world's user table), else, on the live root, from NSS (a directory user). Not $HOME: sudo and
// su may keep another user's.
std::string Home(const sys::Root& root) {
  const std::string uid = std::to_string(::getuid());
  if (auto passwd = root.ReadFile("etc/passwd"))
    for (std::string_view line : text::SplitLines(*passwd)) {
      std::vector<std::string_view> fields;
      size_t start = 0;
      for (size_t pos = line.find(':'); pos != std::string_view::npos; pos = line.find(':', start)) {
        fields.push_back(line.substr(start, pos - start));
        start = pos + 1;
      }
      fields.push_back(line.substr(start));
      if (fields.size() >= 6 && fields[2] == uid) return std::string(text::Trim(fields[5]));
    }
  if (!root.IsLive()) return "";
  const struct passwd* pw = ::getpwuid(::getuid());  // NOLINT(concurrency-mt-unsafe): one thread
  return pw && pw->pw_dir ? pw->pw_dir : "";
}

std::string Relative(std::string home) {
  while (home.starts_with('/')) home.erase(0, 1);
  return home.empty() ? "" : home;
}

}  // namespace

std::vector<knobs::EnvSetting> CallerEnvironment(const sys::Root& root) {
  std::vector<knobs::EnvSetting> out = knobs::UserEnvSettings(root, Relative(Home(root)));
  std::vector<std::string> entries;
  for (char** e = environ; e && *e; ++e) entries.emplace_back(*e);
  for (knobs::EnvSetting& s : knobs::ProcessEnvSettings(entries, knobs::KnownEnvName)) out.push_back(std::move(s));
  return out;
}

}  // namespace rocmtune::client
