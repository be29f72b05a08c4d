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

// The ROCm variables rocmtune checks, the visible-device lists, and where a program finds its
// runtime: its Python environment, library path and ROCm prefix (runtime::FindRuntimes).
bool Kept(std::string_view name) {
  for (std::string_view n : {"PATH", "HOME", "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "LD_LIBRARY_PATH",
                             "ROCM_PATH", "HIP_PATH", "PYTHONPATH", "PYTHONUSERBASE", "HIP_VISIBLE_DEVICES",
                             "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"})
    if (name == n) return true;
  return name.starts_with("HSA_OVERRIDE_GFX_VERSION") || knobs::KnownEnvName(name);
}

}  // namespace

std::vector<knobs::EnvSetting> CallerEnvironment(const sys::Root& root) {
  std::vector<knobs::EnvSetting> out = knobs::UserEnvSettings(root, Relative(Home(root)));
  std::vector<std::string> entries;
  for (char** e = environ; e && *e; ++e) entries.emplace_back(*e);
  for (knobs::EnvSetting& s : knobs::ProcessEnvSettings(entries, Kept)) out.push_back(std::move(s));
  return out;
}

std::string CallerHome(const sys::Root& root) { return Relative(Home(root)); }

}  // namespace rocmtune::client
