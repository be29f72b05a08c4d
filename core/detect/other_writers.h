// Other programs that write the amdgpu sysfs attributes rocmtune sets: power-profiles-daemon's
// amdgpu_dpm action, tuned's [sysfs] lines, GameMode's [gpu] section, LACT's daemon and
// CoreCtrl's helper. Found from their files (so a world shows them too) and, for
// power-profiles-daemon, from its own answers on the system bus (Version, Actions, ActionsInfo,
// the profiles' drivers) when a bus probe is registered (bus/power_profiles.h: rocmtunectl and
// rocmtuned register one; the core itself has no sd-bus). What each one does and when is in its
// finding (writer.*), with the source that says so.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "detect/finding.h"
#include "sys/root.h"

namespace rocmtune::detect {

// What power-profiles-daemon (or tuned-ppd, which serves the same API) said on the system bus.
struct PowerProfilesBus {
  std::string error;     // why the bus could not be asked ("" when it was)
  bool running = false;  // a process owns one of its names now
  std::string name;      // the name that answered: org.freedesktop.UPower.PowerProfiles or net.hadess.PowerProfiles
  std::optional<std::string> version;  // Version: releases before 0.20 have none (Debian 12's 0.12)
  std::vector<std::string> actions;    // Actions
  // ActionsInfo's Enabled for amdgpu_dpm (0.30 on, with SetActionEnabled); nullopt without it.
  std::optional<bool> amdgpu_dpm_enabled;
  bool set_action_enabled = false;   // ActionsInfo is there, so SetActionEnabled is too
  std::vector<std::string> drivers;  // the Profiles' Driver values; "tuned": tuned-ppd answers
  std::string active_profile;

  bool HasAmdgpuDpm() const;
  bool TunedPpd() const;
};

// The probe rocmtunectl and rocmtuned register at start (nullptr: none). `any_root`: ask it for
// every root, not only the live one (rocmtuned: the bus it serves on is its tree's system bus).
using PowerProfilesProbe = std::function<PowerProfilesBus()>;
void SetPowerProfilesProbe(PowerProfilesProbe probe, bool any_root);
// The registered probe's answer for this root, or nullopt when none is asked.
std::optional<PowerProfilesBus> AskPowerProfiles(const sys::Root& root);

// writer.power-profiles-daemon, writer.tuned, writer.gamemode, writer.lact, writer.corectrl
// findings for the writers this tree has installed and enabled; nothing for one that is absent,
// disabled or masked. `bus`: power-profiles-daemon's answers (nullptr: AskPowerProfiles).
std::vector<Finding> OtherWriterFindings(const sys::Root& root);
std::vector<Finding> OtherWriterFindings(const sys::Root& root, const PowerProfilesBus* bus);

// The writer.* findings among `findings` replaced by what the files and the bus say now: the
// bus's answers change without a udev event (rocmtuned refreshes its kept inventory's with this).
void RefreshOtherWriters(const sys::Root& root, std::vector<Finding>& findings);

// The files the writer.* findings read that this tree has (root-relative): what a snapshot copies
// so that its world shows the same findings (snapshot/snapshot.cc). `markers`: what stands for
// itself by being there (a socket, a binary), copied as an empty file.
struct WriterFiles {
  std::vector<std::string> files;
  std::vector<std::string> markers;
};
WriterFiles OtherWriterFiles(const sys::Root& root);

// writer_configs.cc: tuned's active profile and GameMode's configuration (INI files, libinih).
// TunedProfileFiles: the active profiles' tuned.conf files and those they include.
std::vector<std::string> TunedProfileFiles(const sys::Root& root);
void TunedFindings(const sys::Root& root, std::vector<Finding>& out);
void GameModeFindings(const sys::Root& root, std::vector<Finding>& out);

// The drop-ins of power-profiles-daemon.service whose ExecStart= has --block-action=amdgpu_dpm
// (the admin's or rocmtune's), root-relative, sorted.
std::vector<std::string> BlockingDropIns(const sys::Root& root);

// Shared with writer_configs.cc: the unit's file where the package put it ("" when it is not
// installed), and the .wants link that enables it ("" when disabled or masked).
std::string UnitFile(const sys::Root& root, std::string_view unit);
std::string EnabledBy(const sys::Root& root, std::string_view unit);

}  // namespace rocmtune::detect
