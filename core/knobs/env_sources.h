// Where else the environment of users' programs is set: files rocmtune does not own but must
// report, because a hand-written HSA_OVERRIDE_GFX_VERSION=10.3.0 in /etc/environment (the
// folklore fix) keeps crashing an RDNA1 card whatever rocmtune configures.
//   pam_env:        /etc/environment (every PAM session: ssh, console, display managers)
//   environment.d:  /etc/environment.d/*.conf, /usr/lib/environment.d/*.conf (systemd user sessions)
//   login shells:   /etc/profile, /etc/profile.d/*.sh, /etc/bash.bashrc
// Shell files are not run: they are read with util/shell_words.h, so an assignment of literal
// words (quoted or not) gives its value; one that needs an expansion is reported as set by the
// shell, value unknown.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sys/root.h"

namespace rocmtune::knobs {

struct EnvSetting {
  std::string file;  // root-relative
  int line = 0;      // 1-based
  std::string name;
  std::optional<std::string> value;  // nullopt: computed by the shell (quotes with $, `...`)
};

struct EnvSource {
  std::string path;  // root-relative
  bool shell;        // a shell script, not a KEY=VALUE list
};

// The files above that exist as directory entries or are always looked for, in reading order,
// without rocmtune's own drop-ins.
std::vector<EnvSource> ForeignEnvSources(const sys::Root& root);

// Every assignment in the sources above except rocmtune's own drop-ins, in the order the
// sources are read (later entries of one source win).
std::vector<EnvSetting> ForeignEnvSettings(const sys::Root& root);

// The assignments in one source's content (file left empty), with their line numbers.
std::vector<EnvSetting> ParseEnvSource(std::string_view content, bool shell);
// The assignments in one source, read beneath `root`; none when it is missing or unreadable.
std::vector<EnvSetting> ReadEnvSource(const sys::Root& root, const EnvSource& source);

// rocmtune's own drop-ins, as sources: /etc/environment.d/90-rocmtune.conf, /etc/profile.d/rocmtune.sh.
std::vector<EnvSource> OwnedEnvSources();

// The caller's own environment (doctor and check-compute ask for the programs its user starts):
// the process's variables (file empty: "the environment of this process"), and the files that
// user's sessions and shells read — ~/.config/environment.d/*.conf (systemd user sessions,
// environment.d(5)), ~/.profile, ~/.bash_profile, ~/.bash_login, ~/.bashrc (bash(1) INVOCATION),
// ~/.zshenv, ~/.zprofile, ~/.zshrc (zsh(1) STARTUP/SHUTDOWN FILES). `home` is root-relative;
// the files are opened by the calling process, so only what that user may read is read.
std::vector<EnvSource> UserEnvSources(const sys::Root& root, std::string_view home);
std::vector<EnvSetting> UserEnvSettings(const sys::Root& root, std::string_view home);
// `environ`-style NAME=VALUE entries, of the names `keep` accepts, in order.
std::vector<EnvSetting> ProcessEnvSettings(const std::vector<std::string>& entries,
                                           bool (*keep)(std::string_view name));
// Where a setting is written, for a person: "/etc/environment:2", or "the environment of this
// process".
std::string SettingPlace(const sys::Root& root, const EnvSetting& setting);

// One line of an environment file or a shell script, or nullopt when it assigns nothing (a
// script line assigning several names: the first).
std::optional<EnvSetting> ParseEnvAssignment(std::string_view line, bool shell);

}  // namespace rocmtune::knobs
