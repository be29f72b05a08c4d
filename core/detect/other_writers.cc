#include "detect/other_writers.h"

#include <fmt/format.h>

#include "detect/finding_ids.h"
#include "util/text.h"

namespace rocmtune::detect {
namespace {

constexpr std::string_view kUnitDirs[] = {"usr/lib/systemd/system", "lib/systemd/system"};
constexpr std::string_view kWantsDirs[] = {"graphical.target.wants", "multi-user.target.wants"};

// The unit's file where the package put it, or "" when it is not installed.
std::string UnitFile(const sys::Root& root, std::string_view unit) {
  for (std::string_view dir : kUnitDirs)
    if (std::string path = fmt::format("{}/{}", dir, unit); root.Exists(path)) return path;
  return "";
}

// Enabled: a symlink in a .wants directory of /etc/systemd/system (systemctl enable); masked:
// the unit itself in /etc/systemd/system pointing at /dev/null (systemctl mask).
bool Masked(const sys::Root& root, std::string_view unit) {
  auto target = root.ReadLink(fmt::format("etc/systemd/system/{}", unit));
  return target && *target == "/dev/null";
}

std::string EnabledBy(const sys::Root& root, std::string_view unit) {
  if (Masked(root, unit)) return "";
  for (std::string_view wants : kWantsDirs)
    if (std::string link = fmt::format("etc/systemd/system/{}/{}", wants, unit);
        root.TypeOf(link) != sys::EntryType::kMissing)
      return link;
  return "";
}

// A drop-in of the admin's that starts it with --block-action=amdgpu_dpm (or "--block-action
// amdgpu_dpm"): the action never runs.
std::string BlockingDropIn(const sys::Root& root) {
  const std::string dir = "etc/systemd/system/power-profiles-daemon.service.d";
  auto names = root.ListDir(dir);
  if (!names) return "";
  for (const std::string& n : *names) {
    if (!n.ends_with(".conf")) continue;
    auto text = root.ReadFile(fmt::format("{}/{}", dir, n), 65536);
    if (!text) continue;
    for (std::string_view line : text::SplitLines(*text)) {
      line = text::Trim(line);
      if (!line.starts_with("ExecStart=")) continue;
      auto words = text::Tokens(line);
      for (size_t i = 0; i < words.size(); ++i)
        if (words[i] == "--block-action=amdgpu_dpm" ||
            (words[i] == "--block-action" && i + 1 < words.size() && words[i + 1] == "amdgpu_dpm"))
          return fmt::format("{}/{}", dir, n);
    }
  }
  return "";
}

// ppd-action-amdgpu-dpm.c probes only on AMD CPUs (ppd_utils_match_cpu_vendor("AuthenticAMD")).
// nullopt: /proc/cpuinfo cannot be read.
std::optional<bool> AmdCpu(const sys::Root& root) {
  auto info = root.ReadFile("proc/cpuinfo", 4 << 20);
  if (!info) return std::nullopt;
  for (std::string_view line : text::SplitLines(*info)) {
    if (!line.starts_with("vendor_id")) continue;
    size_t colon = line.find(':');
    if (colon != std::string_view::npos) return text::Trim(line.substr(colon + 1)) == "AuthenticAMD";
  }
  return std::nullopt;
}

void PowerProfilesDaemon(const sys::Root& root, std::vector<Finding>& out) {
  const std::string unit = UnitFile(root, "power-profiles-daemon.service");
  if (unit.empty()) return;
  // Not enabled still runs: its bus service (net.hadess.PowerProfiles, SystemdService=) starts it
  // when a desktop asks. Only a mask stops it.
  if (Masked(root, "power-profiles-daemon.service")) return;
  const std::string enabled = EnabledBy(root, "power-profiles-daemon.service");
  const std::string runs = enabled.empty() ? " (D-Bus activation starts it when a desktop asks)" : " and enabled";
  const std::string source =
      "power-profiles-daemon src/ppd-action-amdgpu-dpm.c (action amdgpu_dpm; LACT issues 370, 605)";
  if (std::string drop_in = BlockingDropIn(root); !drop_in.empty()) {
    out.push_back({FindingName(FindingId::kWriterPowerProfilesDaemon), Severity::kInfo,
                   "power-profiles-daemon runs with its amdgpu_dpm action blocked, so it leaves the GPUs' "
                   "power_dpm_force_performance_level alone",
                   "power-profiles-daemon", drop_in, 0, "", source});
    return;
  }
  std::optional<bool> amd = AmdCpu(root);
  if (amd == false) return;  // the action does not even probe on another vendor's CPU
  out.push_back(
      {FindingName(FindingId::kWriterPowerProfilesDaemon), Severity::kWarning,
       fmt::format("power-profiles-daemon is installed{}{}: from the release with its amdgpu_dpm action (2024) on, it "
                   "writes every GPU's power_dpm_force_performance_level (low for power-saver, auto otherwise) at "
                   "each profile change and each GPU added, so a level rocmtune sets does not last (Debian 12's "
                   "0.12 has no such action)",
                   runs, amd ? " on an AMD CPU" : " (the CPU's vendor could not be read)"),
       "power-profiles-daemon", enabled.empty() ? unit : enabled, 0,
       "Block the action with a drop-in for power-profiles-daemon.service whose ExecStart= adds "
       "--block-action=amdgpu_dpm, or leave the performance level to it",
       source});
}

void Lact(const sys::Root& root, std::vector<Finding>& out) {
  if (UnitFile(root, "lactd.service").empty()) return;
  const std::string enabled = EnabledBy(root, "lactd.service");
  if (enabled.empty()) return;
  const bool configured = root.Exists("etc/lact/config.yaml");
  out.push_back({FindingName(FindingId::kWriterLact), Severity::kInfo,
                 fmt::format("LACT's daemon (lactd) is enabled{}: it writes the GPU attributes its profiles set "
                             "(performance level, power profile, clocks) when it starts and when a profile "
                             "changes, over what rocmtune set",
                             configured ? " and has a configuration (/etc/lact/config.yaml)" : ""),
                 "lactd", configured ? "etc/lact/config.yaml" : enabled, 0,
                 "Set the GPU's performance level in one of them, not both",
                 "LACT docs/CONFIG.md (ilya-zlobintsev/LACT)"});
}

void CoreCtrl(const sys::Root& root, std::vector<Finding>& out) {
  // CoreCtrl's helper runs while a user's CoreCtrl session does, started over D-Bus with polkit
  // (org.corectrl.helper.init); its bus service file says it is installed.
  const std::string service = "usr/share/dbus-1/system-services/org.corectrl.helper.service";
  if (!root.Exists(service)) return;
  out.push_back({FindingName(FindingId::kWriterCoreCtrl), Severity::kInfo,
                 "CoreCtrl is installed: while a user runs it, its helper writes the GPU attributes of the "
                 "user's CoreCtrl profile (performance level, power profile, clocks), over what rocmtune set",
                 "corectrl", service, 0, "Set the GPU's performance level in one of them, not both",
                 "CoreCtrl src/helper/org.corectrl.helper.policy (gitlab.com/corectrl/corectrl)"});
}

}  // namespace

std::vector<Finding> OtherWriterFindings(const sys::Root& root) {
  std::vector<Finding> out;
  PowerProfilesDaemon(root, out);
  Lact(root, out);
  CoreCtrl(root, out);
  return out;
}

}  // namespace rocmtune::detect
