// The environment a program runs with, not only the asking shell's: a systemd unit's
// Environment=/EnvironmentFile= with its drop-ins, a conda environment's activation, an
// environment file. An HSA_OVERRIDE_GFX_VERSION in /etc/systemd/system/ollama.service.d/*.conf
// (the documented way to run ollama on an unsupported Radeon) or in a conda env's
// etc/conda/activate.d decides what that program's ROCm does, and a login shell never sees it.
//
// Files are read, never run: shell scripts through util/shell_words.h as knobs/env_sources.h
// does (a value that needs an expansion is "computed": known to be set, value unknown).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "knobs/env_sources.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::program {

enum class ContextKind {
  kCaller,    // the asking process and its user's session and shell files (client/caller_env.h)
  kUnit,      // a system service: systemd unit (system manager)
  kUserUnit,  // a user's service (user manager): also reads environment.d
  kConda,     // a conda environment, as `conda activate` leaves it
  kEnvFile,   // an environment file given by path (KEY=VALUE lines, as EnvironmentFile= reads)
};
std::string_view ContextKindName(ContextKind kind);  // "caller", "unit", "user-unit", "conda", "env-file"

struct Context {
  ContextKind kind = ContextKind::kCaller;
  std::string name;  // for a person: "ollama.service", "conda env ml (/home/u/miniconda3/envs/ml)"
  // Every assignment the program gets, in the order it gets them (a later one of a name wins):
  // for a system unit, the manager's DefaultEnvironment= first, then Environment= and
  // EnvironmentFile= in the order systemd applies them, the unit file then its drop-ins.
  // `file` root-relative where it was set, empty for the process; `value` nullopt when computed.
  std::vector<knobs::EnvSetting> env;
  std::vector<std::string> notes;  // what could not be read, and why (an EnvironmentFile= missing, a computed value)
  // The program a unit's ExecStart= starts, absolute as on the machine ("/usr/local/bin/ollama");
  // empty when unknown (no ExecStart=, a specifier, not a unit). Programs that bundle their own
  // ROCm (ollama's lib/ollama/rocm) load it, not the system's (runtime::FindRuntimes).
  std::string exec;
  // false: systemd will not start the unit (masked, or an EnvironmentFile= without "-" that is
  // missing or refused), so its environment reaches no program.
  bool starts = true;
};

// The last value of each name (a computed one hides an earlier literal: the value is unknown).
std::map<std::string, std::optional<std::string>> Values(const Context& context);
// The same, known values only (what runtime::FindRuntimes and visibility read).
std::map<std::string, std::string> KnownValues(const Context& context);

// A systemd unit (system, or `user` for the user manager of the caller's `home`, root-relative):
// the unit file found by systemd's search path (/etc, /run, /usr/local/lib, /usr/lib; user:
// ~/.config/systemd/user, /etc/systemd/user, /usr/lib/systemd/user), its drop-ins
// (NAME.d/*.conf in every search directory, and the type's top-level service.d/, ordered by file
// name, /etc's hiding a same-named one below), Environment= (systemd's quoting, specifiers %h,
// %u, %n left unknown when they cannot be resolved) and EnvironmentFile= ("-" optional). kNotFound
// for a unit that is not there; a name that is not a unit name is kInvalidArgument ("ollama"
// without a type is read as "ollama.service", as systemctl does). A masked unit gives a Context
// with `starts` false and no environment.
Result<Context> UnitContext(const sys::Root& root, std::string_view unit, bool user, std::string_view home);
// A conda environment by name (envs/NAME under the conda roots: ~/miniconda3, ~/anaconda3,
// ~/miniforge3, ~/.conda, /opt/conda, and those ~/.conda/environments.txt lists) or by prefix:
// its conda-meta/state env_vars (`conda env config vars set`), then etc/conda/activate.d/*.sh in
// name order, on top of `base` (the caller's values: the shell it is activated in); CONDA_PREFIX
// and PATH as activation sets them.
Result<Context> CondaContext(const sys::Root& root, std::string_view env, std::string_view home,
                             const std::vector<knobs::EnvSetting>& base);
// An environment file (root-relative path): KEY=VALUE lines as systemd's EnvironmentFile= reads them.
Result<Context> EnvFileContext(const sys::Root& root, std::string_view path);

// The machine's ROCm services: ollama.service when it is installed, and every enabled system unit
// (a *.wants/ link under /etc/systemd/system) whose environment sets an HSA_*, HIP_*, ROCR_* or
// HCC_* variable; sorted by name. Bounded: units and drop-ins beyond a few hundred are not read.
std::vector<Context> ServiceContexts(const sys::Root& root);

}  // namespace rocmtune::program
