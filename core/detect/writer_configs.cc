// tuned's and GameMode's configuration: INI files read with libinih. What they write to GPUs is
// decided by these files; the daemons themselves are not asked (tuned's D-Bus API says the
// profile's name, the files say what it sets). A user's own ~/.config/gamemode.ini is not read.
#include <ini.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "detect/finding_ids.h"
#include "detect/other_writers.h"
#include "util/text.h"

namespace rocmtune::detect {
namespace {

using Section = std::vector<std::pair<std::string, std::string>>;
using Ini = std::map<std::string, Section, std::less<>>;

// Every key of every section, in file order. inih splits a line at its first '=' or ':', so a
// [sysfs] key naming a PCI device (/sys/bus/pci/devices/0000:03:00.0/...) arrives cut at the
// first ':': its name is put back together up to the '=' in what inih called the value.
Ini ParseIni(const std::string& content) {
  Ini ini;
  auto handler = [](void* user, const char* section, const char* name, const char* value) -> int {
    std::string key = name, val = value;
    if (key.starts_with("/") && !val.empty()) {
      if (size_t eq = val.find('='); eq != std::string::npos && val.substr(0, eq).find(' ') == std::string::npos) {
        key += ":" + val.substr(0, eq);
        val = std::string(text::Trim(val.substr(eq + 1)));
      }
    }
    (*static_cast<Ini*>(user))[section].emplace_back(std::move(key), std::move(val));
    return 1;
  };
  ini_parse_string(content.c_str(), handler, &ini);  // a line it cannot parse is skipped
  return ini;
}

std::string Value(const Ini& ini, std::string_view section, std::string_view key) {
  auto s = ini.find(section);
  if (s == ini.end()) return "";
  std::string out;
  for (const auto& [k, v] : s->second)
    if (k == key) out = v;  // the last one wins, as in tuned and GameMode
  return out;
}

// A sysfs path of a GPU's power attributes rocmtune also sets: pp_* and power_dpm_* under a DRM
// card or a PCI device.
bool GpuPowerAttribute(std::string_view path) {
  if (!path.starts_with("/sys/")) return false;
  std::string_view name = path.substr(path.rfind('/') + 1);
  bool power = name.starts_with("power_dpm_") || name.starts_with("pp_");
  bool gpu = path.find("/drm/") != std::string_view::npos || path.find("/pci") != std::string_view::npos ||
             path.starts_with("/sys/devices/");
  return power && gpu;
}

// tuned's profile NAME: /etc/tuned overrides /usr/lib/tuned (tuned 2.23 moved both into
// profiles/). "" when no directory has it.
std::string TunedProfileFile(const sys::Root& root, std::string_view name) {
  if (name.empty() || name.find('/') != std::string_view::npos || name == "." || name == "..") return "";
  for (std::string_view dir : {"etc/tuned/profiles", "etc/tuned", "usr/lib/tuned/profiles", "usr/lib/tuned"})
    if (std::string f = fmt::format("{}/{}/tuned.conf", dir, name); root.Exists(f)) return f;
  return "";
}

struct TunedWrites {
  std::vector<std::string> lines;  // "path=value" of [sysfs] sections
  std::string file;                // the first profile file with one
  bool radeon_powersave = false;   // [video] radeon_powersave=
  std::vector<std::string> read;   // every profile file read
};

// The profile and those it includes ([main] include=, comma-separated; parents first).
void ReadTunedProfile(const sys::Root& root, std::string_view name, int depth, TunedWrites& out) {
  if (depth > 8) return;  // an include cycle
  std::string file = TunedProfileFile(root, name);
  if (file.empty()) return;
  auto content = root.ReadFile(file, 256 * 1024);
  if (!content) return;
  if (std::find(out.read.begin(), out.read.end(), file) == out.read.end()) out.read.push_back(file);
  Ini ini = ParseIni(*content);
  const std::string include = Value(ini, "main", "include");
  for (std::string_view parent : text::Tokens(include)) {
    std::string p(parent);
    while (!p.empty() && p.back() == ',') p.pop_back();
    for (size_t comma; (comma = p.find(',')) != std::string::npos;) {
      ReadTunedProfile(root, text::Trim(std::string_view(p).substr(0, comma)), depth + 1, out);
      p = p.substr(comma + 1);
    }
    ReadTunedProfile(root, text::Trim(p), depth + 1, out);
  }
  // Any section whose plugin is sysfs: [sysfs], or [name] with type=sysfs.
  for (const auto& [section, keys] : ini) {
    bool sysfs = section == "sysfs" || Value(ini, section, "type") == "sysfs";
    bool video = section == "video" || Value(ini, section, "type") == "video";
    for (const auto& [k, v] : keys) {
      if (sysfs && GpuPowerAttribute(k)) {
        out.lines.push_back(fmt::format("{}={}", k, v));
        if (out.file.empty()) out.file = file;
      }
      if (video && k == "radeon_powersave" && !v.empty()) out.radeon_powersave = true;
    }
  }
}

}  // namespace

std::vector<std::string> TunedProfileFiles(const sys::Root& root) {
  auto active = root.ReadFile("etc/tuned/active_profile", 4096);
  if (!active) return {};
  TunedWrites writes;
  for (std::string_view name : text::Tokens(*active)) ReadTunedProfile(root, name, 0, writes);
  return writes.read;
}

void TunedFindings(const sys::Root& root, std::vector<Finding>& out) {
  if (UnitFile(root, "tuned.service").empty()) return;
  const std::string enabled = EnabledBy(root, "tuned.service");
  if (enabled.empty()) return;
  auto active = root.ReadFile("etc/tuned/active_profile", 4096);
  if (!active) return;
  TunedWrites writes;
  std::vector<std::string_view> names = text::Tokens(*active);  // several profiles merge
  for (std::string_view name : names) ReadTunedProfile(root, name, 0, writes);
  const std::string profile = fmt::format("{}", fmt::join(names, " "));
  const std::string source =
      "tuned tuned/plugins/plugin_sysfs.py, plugin_video.py (redhat-performance/tuned; issue 634)";
  if (!writes.lines.empty()) {
    out.push_back(
        {.id = FindingName(FindingId::kWriterTuned),
         .severity = Severity::kWarning,
         .subject = "tuned",
         .what = fmt::format("tuned's active profile ({}) writes GPU attributes each time tuned applies it (at its "
                             "start and at each profile switch): {}",
                             profile, fmt::join(writes.lines, ", ")),
         .fix = {.text = "Set the GPU's power attributes in tuned's profile or in rocmtune, not both"},
         .sources = SourcesOf(source),
         .file = writes.file});
  } else if (writes.radeon_powersave) {
    out.push_back({.id = FindingName(FindingId::kWriterTuned),
                   .severity = Severity::kInfo,
                   .subject = "tuned",
                   .what = fmt::format("tuned's active profile ({}) has [video] radeon_powersave: it writes the radeon "
                                       "driver's power_method, which amdgpu GPUs do not have, so it leaves their "
                                       "power_dpm_force_performance_level alone",
                                       profile),
                   .sources = SourcesOf(source),
                   .file = "etc/tuned/active_profile"});
  }
}

void GameModeFindings(const sys::Root& root, std::vector<Finding>& out) {
  if (!root.Exists("usr/bin/gamemoded")) return;
  // GameMode reads /usr/share/gamemode/gamemode.ini, then /etc/gamemode.ini, then the user's own
  // (gamemode-config.c): a later file's key wins. The file named is the last one setting the level.
  std::string file;
  Ini ini;
  for (std::string_view f : {"usr/share/gamemode/gamemode.ini", "etc/gamemode.ini"}) {
    auto content = root.ReadFile(f, 256 * 1024);
    if (!content) continue;
    for (auto& [section, keys] : ParseIni(*content)) {
      for (auto& kv : keys) {
        if (section == "gpu" && kv.first == "amd_performance_level") file = std::string(f);
        ini[section].push_back(std::move(kv));
      }
    }
  }
  const std::string level = Value(ini, "gpu", "amd_performance_level");
  const bool accepted = Value(ini, "gpu", "apply_gpu_optimisations") == "accept-responsibility";
  if (level.empty() || !accepted) return;
  std::string device = Value(ini, "gpu", "gpu_device");
  out.push_back(
      {.id = FindingName(FindingId::kWriterGameMode),
       .severity = Severity::kWarning,
       .subject = "gamemode",
       .what = fmt::format("GameMode sets card{}'s power_dpm_force_performance_level to {} while a game runs "
                           "(gamemoded through pkexec gpuclockctl) and puts back what it found when the game ends",
                           device.empty() ? "0" : device, level),
       .fix = {.text =
                   "Leave the performance level to GameMode on that card, or remove amd_performance_level from [gpu]"},
       .sources = {"GameMode example/gamemode.ini, daemon/gamemode-gpu.c (FeralInteractive/gamemode)"},
       .file = file});
}

}  // namespace rocmtune::detect
