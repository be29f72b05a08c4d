#include "detect/other_writers.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "detect/finding_ids.h"
#include "detect/power_profiles_request.h"
#include "util/text.h"

namespace rocmtune::detect {
namespace {

constexpr std::string_view kUnitDirs[] = {"etc/systemd/system", "usr/lib/systemd/system", "lib/systemd/system"};
constexpr std::string_view kWantsDirs[] = {"graphical.target.wants", "multi-user.target.wants"};
constexpr std::string_view kPpdSource =
    "power-profiles-daemon src/ppd-action-amdgpu-dpm.c (action amdgpu_dpm, 0.22 on; SetActionEnabled 0.30 on; "
    "LACT lact-daemon/src/system/power_profiles_daemon.rs, issues 370, 605)";

PowerProfilesProbe& Probe() {
  static PowerProfilesProbe probe;
  return probe;
}
bool& ProbeAnyRoot() {
  static bool any = false;
  return any;
}

// Masked: the unit itself in /etc/systemd/system pointing at /dev/null (systemctl mask).
bool Masked(const sys::Root& root, std::string_view unit) {
  auto target = root.ReadLink(fmt::format("etc/systemd/system/{}", unit));
  return target && *target == "/dev/null";
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

// The cards whose performance level is one the action would turn back ("card1's `high`"): it
// writes every card not in `manual` (0.23 on) to auto or low.
std::string LevelsAtRisk(const sys::Root& root) {
  auto cards = root.ListDir("sys/class/drm");
  if (!cards) return "";
  std::vector<std::string> at_risk;
  for (const std::string& card : *cards) {
    if (!card.starts_with("card") || card.find('-') != std::string::npos) continue;
    auto level = root.ReadFile(fmt::format("sys/class/drm/{}/device/power_dpm_force_performance_level", card), 256);
    if (!level) continue;
    std::string value = text::Clean(*level);
    if (!value.empty() && value != "auto" && value != "manual" && value != "low")
      at_risk.push_back(fmt::format("{}'s `{}`", card, value));
  }
  if (at_risk.empty()) return "";
  return fmt::format("; {} will not last", fmt::join(at_risk, ", "));
}

std::string VersionText(const PowerProfilesBus& bus) {
  return bus.version
             ? fmt::format("power-profiles-daemon {}", *bus.version)
             : std::string("power-profiles-daemon (a release without the Version property, as Debian 12's 0.12)");
}

constexpr std::string_view kSettle =
    "rocmtunectl set service.power-profiles-daemon.amdgpu_dpm=off blocks the action (a drop-in with "
    "--block-action=amdgpu_dpm; revert and reset undo it), or leave the performance level to it";

Finding PpdFinding(Severity severity, std::string message, std::string file, std::string hint = "") {
  return {.id = FindingName(FindingId::kWriterPowerProfilesDaemon),
          .severity = severity,
          .subject = "power-profiles-daemon",
          .what = std::move(message),
          .fix = {.text = std::move(hint)},
          .sources = {std::string(kPpdSource)},
          .file = std::move(file)};
}

// What the running daemon said decides; its files say the rest.
void FromBus(const sys::Root& root, const PowerProfilesBus& bus, const std::string& file, const std::string& drop_in,
             std::optional<bool> amd, std::vector<Finding>& out) {
  const std::string who = VersionText(bus);
  if (!bus.HasAmdgpuDpm()) {
    std::string why = !drop_in.empty()                      ? fmt::format(" (blocked by /{})", drop_in)
                      : amd == false                        ? " (the action probes only on AMD CPUs)"
                      : !bus.version || bus.actions.empty() ? " (releases before 0.22 have none)"
                                                            : "";
    out.push_back(PpdFinding(
        Severity::kInfo,
        fmt::format("{} runs without an amdgpu_dpm action{} (its actions: {}): it leaves the GPUs' "
                    "power_dpm_force_performance_level alone",
                    who, why, bus.actions.empty() ? "none" : fmt::format("{}", fmt::join(bus.actions, ", "))),
        drop_in.empty() ? file : drop_in));
    return;
  }
  if (bus.amdgpu_dpm_enabled == false) {
    out.push_back(PpdFinding(
        Severity::kInfo,
        fmt::format("{} has its amdgpu_dpm action disabled now (ActionsInfo: SetActionEnabled){}: it leaves the GPUs' "
                    "power_dpm_force_performance_level alone",
                    who, drop_in.empty() ? "" : fmt::format("; /{} blocks it at every start", drop_in)),
        drop_in.empty() ? file : drop_in,
        drop_in.empty() ? "rocmtunectl set service.power-profiles-daemon.amdgpu_dpm=off keeps it off at every start"
                        : ""));
    return;
  }
  std::string restart =
      drop_in.empty() ? "" : fmt::format(" (/{} blocks it only from the daemon's next start)", drop_in);
  out.push_back(PpdFinding(
      Severity::kWarning,
      fmt::format("{} resets power_dpm_force_performance_level to auto (low in power-saver) on every profile change "
                  "and every GPU added{}; its profile now: {}{}",
                  who, restart, bus.active_profile.empty() ? "unknown" : bus.active_profile, LevelsAtRisk(root)),
      drop_in.empty() ? file : drop_in,
      drop_in.empty() ? std::string(kSettle) : "systemctl restart power-profiles-daemon"));
}

void PowerProfilesDaemon(const sys::Root& root, const PowerProfilesBus* bus, std::vector<Finding>& out) {
  constexpr std::string_view kUnit = "power-profiles-daemon.service";
  const bool running = bus && bus->error.empty() && bus->running;
  if (running && bus->TunedPpd()) {
    out.push_back(PpdFinding(
        Severity::kInfo,
        fmt::format("tuned-ppd answers power-profiles-daemon's API here ({}, profile {}): it has no amdgpu_dpm action; "
                    "what tuned writes to GPUs is its profile's (writer.tuned)",
                    bus->name, bus->active_profile.empty() ? "unknown" : bus->active_profile),
        UnitFile(root, "tuned-ppd.service")));
    return;
  }
  const std::string unit = UnitFile(root, kUnit);
  if (unit.empty() && !running) return;
  // Not enabled still runs: its bus service (net.hadess.PowerProfiles, SystemdService=) starts it
  // when a desktop asks. Only a mask stops it.
  if (Masked(root, kUnit) && !running) return;
  const std::string enabled = EnabledBy(root, kUnit);
  const std::vector<std::string> drop_ins = BlockingDropIns(root);
  const std::string drop_in = drop_ins.empty() ? "" : drop_ins.front();
  std::optional<bool> amd = AmdCpu(root);
  const std::string file = enabled.empty() ? unit : enabled;
  if (running) return FromBus(root, *bus, file, drop_in, amd, out);

  const std::string asked =
      bus && !bus->error.empty() ? fmt::format(" (the bus could not be asked: {})", bus->error) : "";
  if (!drop_in.empty()) {
    out.push_back(PpdFinding(Severity::kInfo,
                             fmt::format("power-profiles-daemon starts with its amdgpu_dpm action blocked{}, so it "
                                         "leaves the GPUs' power_dpm_force_performance_level alone",
                                         asked),
                             drop_in));
    return;
  }
  if (amd == false) return;  // the action does not even probe on another vendor's CPU
  const std::string runs = enabled.empty() ? " (D-Bus activation starts it when a desktop asks)" : " and enabled";
  out.push_back(PpdFinding(
      Severity::kWarning,
      fmt::format("power-profiles-daemon is installed{}{}{}: from the release with its amdgpu_dpm action (0.22, 2024) "
                  "on, it writes every GPU's power_dpm_force_performance_level (low for power-saver, auto otherwise) "
                  "at each profile change and each GPU added, so a level rocmtune sets does not last (Debian 12's "
                  "0.12 has no such action){}",
                  runs, amd ? " on an AMD CPU" : " (the CPU's vendor could not be read)", asked, LevelsAtRisk(root)),
      file, std::string(kSettle)));
}

void Lact(const sys::Root& root, std::vector<Finding>& out) {
  // lactd serves its JSON API on /run/lactd.sock while it runs (docs/API.md).
  const bool socket = root.TypeOf("run/lactd.sock") != sys::EntryType::kMissing;
  const std::string enabled = UnitFile(root, "lactd.service").empty() ? "" : EnabledBy(root, "lactd.service");
  if (enabled.empty() && !socket) return;
  const bool configured = root.Exists("etc/lact/config.yaml");
  std::string state = socket && !enabled.empty() ? "is enabled and running (/run/lactd.sock)"
                      : socket                   ? "is running (/run/lactd.sock)"
                                                 : "is enabled";
  out.push_back({.id = FindingName(FindingId::kWriterLact),
                 .severity = Severity::kInfo,
                 .subject = "lactd",
                 .what = fmt::format("LACT's daemon (lactd) {}{}: it writes the GPU attributes its profiles set "
                                     "(performance level, power profile, clocks) when it starts and when a profile "
                                     "changes, over what rocmtune set",
                                     state, configured ? " and has a configuration (/etc/lact/config.yaml)" : ""),
                 .fix = {.text = "Set the GPU's performance level in one of them, not both"},
                 .sources = {"LACT docs/CONFIG.md, docs/API.md (ilya-zlobintsev/LACT)"},
                 .file = configured ? "etc/lact/config.yaml" : (socket ? "run/lactd.sock" : enabled)});
}

void CoreCtrl(const sys::Root& root, std::vector<Finding>& out) {
  // CoreCtrl's helper runs while a user's CoreCtrl session does, started over D-Bus with polkit
  // (org.corectrl.helper.init); its bus service file says it is installed.
  const std::string service = "usr/share/dbus-1/system-services/org.corectrl.helper.service";
  if (!root.Exists(service)) return;
  out.push_back({.id = FindingName(FindingId::kWriterCoreCtrl),
                 .severity = Severity::kInfo,
                 .subject = "corectrl",
                 .what = "CoreCtrl is installed: while a user runs it, its helper writes the GPU attributes of the "
                         "user's CoreCtrl profile (performance level, power profile, clocks), over what rocmtune set",
                 .fix = {.text = "Set the GPU's performance level in one of them, not both"},
                 .sources = {"CoreCtrl src/helper/org.corectrl.helper.policy (gitlab.com/corectrl/corectrl)"},
                 .file = service});
}

}  // namespace

bool PowerProfilesBus::HasAmdgpuDpm() const {
  return std::find(actions.begin(), actions.end(), "amdgpu_dpm") != actions.end();
}

bool PowerProfilesBus::TunedPpd() const { return std::find(drivers.begin(), drivers.end(), "tuned") != drivers.end(); }

void SetPowerProfilesProbe(PowerProfilesProbe probe, bool any_root) {
  Probe() = std::move(probe);
  ProbeAnyRoot() = any_root;
}

std::optional<PowerProfilesBus> AskPowerProfiles(const sys::Root& root) {
  if (!Probe() || !(root.IsLive() || ProbeAnyRoot())) return std::nullopt;
  return AskOncePerRequest(Probe());
}

// Enabled: a symlink in a .wants directory of /etc/systemd/system (systemctl enable).
std::string UnitFile(const sys::Root& root, std::string_view unit) {
  for (std::string_view dir : kUnitDirs) {
    std::string path = fmt::format("{}/{}", dir, unit);
    if (dir == kUnitDirs[0] && root.TypeOf(path) == sys::EntryType::kSymlink) continue;  // a mask or an alias
    if (root.Exists(path)) return path;
  }
  return "";
}

std::string EnabledBy(const sys::Root& root, std::string_view unit) {
  if (Masked(root, unit)) return "";
  for (std::string_view wants : kWantsDirs)
    if (std::string link = fmt::format("etc/systemd/system/{}/{}", wants, unit);
        root.TypeOf(link) != sys::EntryType::kMissing)
      return link;
  return "";
}

// The drop-ins that start it with --block-action=amdgpu_dpm (or "--block-action amdgpu_dpm"), the
// admin's or rocmtune's (service.power-profiles-daemon.amdgpu_dpm=off): the action never loads.
std::vector<std::string> BlockingDropIns(const sys::Root& root) {
  std::vector<std::string> out;
  const std::string dir = "etc/systemd/system/power-profiles-daemon.service.d";
  auto names = root.ListDir(dir);
  if (!names) return out;
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
          out.push_back(fmt::format("{}/{}", dir, n));
    }
  }
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<Finding> OtherWriterFindings(const sys::Root& root) {
  std::optional<PowerProfilesBus> bus = AskPowerProfiles(root);
  return OtherWriterFindings(root, bus ? &*bus : nullptr);
}

WriterFiles OtherWriterFiles(const sys::Root& root) {
  WriterFiles out;
  auto add = [&](std::string path) {
    if (!path.empty() && root.Exists(path) && std::find(out.files.begin(), out.files.end(), path) == out.files.end())
      out.files.push_back(std::move(path));
  };
  for (std::string_view unit :
       {"power-profiles-daemon.service", "tuned.service", "tuned-ppd.service", "lactd.service"}) {
    add(UnitFile(root, unit));
    for (std::string_view wants : kWantsDirs) add(fmt::format("etc/systemd/system/{}/{}", wants, unit));
  }
  const std::string drop_ins = "etc/systemd/system/power-profiles-daemon.service.d";
  if (auto names = root.ListDir(drop_ins))
    for (const std::string& n : *names)
      if (n.ends_with(".conf")) add(fmt::format("{}/{}", drop_ins, n));
  for (std::string_view f :
       {"proc/cpuinfo", "etc/tuned/active_profile", "usr/share/gamemode/gamemode.ini", "etc/gamemode.ini",
        "etc/lact/config.yaml", "usr/share/dbus-1/system-services/org.corectrl.helper.service"})
    add(std::string(f));
  for (std::string& f : TunedProfileFiles(root)) add(std::move(f));
  for (std::string_view m : {"usr/bin/gamemoded", "run/lactd.sock"})
    if (root.TypeOf(m) != sys::EntryType::kMissing) out.markers.emplace_back(m);
  return out;
}

void RefreshOtherWriters(const sys::Root& root, std::vector<Finding>& findings) {
  std::erase_if(findings, [](const Finding& f) { return f.id.starts_with("writer."); });
  for (Finding& f : OtherWriterFindings(root)) findings.push_back(std::move(f));
}

std::vector<Finding> OtherWriterFindings(const sys::Root& root, const PowerProfilesBus* bus) {
  std::vector<Finding> out;
  PowerProfilesDaemon(root, bus, out);
  TunedFindings(root, out);
  GameModeFindings(root, out);
  Lact(root, out);
  CoreCtrl(root, out);
  return out;
}

}  // namespace rocmtune::detect
