// The files only rocmtune writes: its drop-ins and its state. The backends that render them
// (knobs), the journal, the helper's allow-list and the client's drift check all ask here, so
// this sits in the plan-data layer below every one of them. Paths are root-relative.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace rocmtune::plan {

// modprobe backend: amdgpu / ttm / amdttm options (knobs/modprobe_backend).
inline constexpr std::string_view kModprobeDropIn = "etc/modprobe.d/rocmtune.conf";
// env backend: systemd user sessions (environment.d(5)) and login shells (knobs/env_backend).
inline constexpr std::string_view kEnvironmentDropIn = "etc/environment.d/90-rocmtune.conf";
inline constexpr std::string_view kProfileDropIn = "etc/profile.d/rocmtune.sh";
// cmdline backend, Debian-style GRUB. "zz-" sorts after the drop-ins distributions and cloud
// images ship ("40-force-partuuid.cfg", "50-cloudimg-settings.cfg", "init-select.cfg").
inline constexpr std::string_view kGrubDropInPath = "etc/default/grub.d/zz-rocmtune.cfg";
// cmdline backend: the tokens rocmtune added to BLS entries / /etc/kernel/cmdline.
inline constexpr std::string_view kCmdlineTokensState = "var/lib/rocmtune/cmdline-tokens";
// sysfs backend: the runtime attributes rocmtune set, by PCI address, with the value each had
// before (knobs/runtime_state.h): what status/verify compare, reset puts back, the daemon re-applies.
inline constexpr std::string_view kRuntimeState = "var/lib/rocmtune/runtime-settings";
// service backend: power-profiles-daemon started without its amdgpu_dpm action
// (service.power-profiles-daemon.amdgpu_dpm=off, knobs/service_backend.h).
inline constexpr std::string_view kPpdDropIn = "etc/systemd/system/power-profiles-daemon.service.d/50-rocmtune.conf";
// A trial boot's state (plan/trial_state.h): prepared by `--trial`, advanced by the boot units.
inline constexpr std::string_view kTrialState = "var/lib/rocmtune/trial";

// Anything else found in one of these is drift; other files rocmtune edits (etc/default/grub ...)
// are shared with their owners.
std::span<const std::string_view> OwnedFiles();
bool IsOwnedFile(std::string_view path);

// The helper replaces a file by writing this temporary beside it ("etc/modprobe.d/x.conf" ->
// "etc/modprobe.d/.x.conf.rocmtune-new"), then renaming it over the file: one still there means
// a write was cut short. The helper names it and `verify`/`status` look for it, both here.
inline constexpr std::string_view kTemporarySuffix = ".rocmtune-new";
std::string TemporaryName(std::string_view path);

}  // namespace rocmtune::plan
