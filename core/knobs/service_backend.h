// service backend: another daemon's writing of the GPU attributes rocmtune sets, settled on
// request (detect/other_writers.h says who writes). One key:
//   service.power-profiles-daemon.amdgpu_dpm=off
// power-profiles-daemon then starts without its amdgpu_dpm action: a drop-in
// (plan::kPpdDropIn) gives its ExecStart= the unit's own command with --block-action=amdgpu_dpm,
// read at `systemctl daemon-reload`. The running daemon is told too: SetActionEnabled(amdgpu_dpm,
// false) where it has the method (0.30 on, over busctl), else `systemctl try-restart`. `unset`,
// `revert` and `reset` remove the drop-in and restart it (an action it started without is not
// there to enable). Nothing is restarted or called when it does not run. Refused where tuned-ppd
// answers the API (no such action, no --block-action), where the installed daemon has no
// amdgpu_dpm action (before 0.22: Debian 12's 0.12) or no --block-action, and where the unit's
// command is not a plain power-profiles-daemon binary.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "knobs/backend.h"

namespace rocmtune::knobs {

inline constexpr std::string_view kPpdKey = "service.power-profiles-daemon.amdgpu_dpm";
inline constexpr std::string_view kPpdBlock = "--block-action=amdgpu_dpm";

// For the registry (knobs/registry.cc).
std::unique_ptr<Backend> MakeServiceBackend();

// The drop-in for the daemon's command `exec` (without the block): rocmtune's comment, [Service],
// `ExecStart=` (clearing the unit's) and `ExecStart=EXEC --block-action=amdgpu_dpm`.
std::string RenderPpdDropIn(const std::vector<std::string>& exec);
// The command (without the block) of a drop-in RenderPpdDropIn made, byte for byte; nullopt for
// any other content. The helper allows what this reads back and nothing else.
std::optional<std::vector<std::string>> PpdDropInCommand(std::string_view content);
// The binaries a distribution installs power-profiles-daemon as, and the arguments it may keep
// (options and option=value, letters, digits, '_', '-', '.', ','): what the helper lets the
// drop-in start as root.
bool KnownPpdProgram(std::string_view path);
bool PlainOption(std::string_view arg);

}  // namespace rocmtune::knobs
