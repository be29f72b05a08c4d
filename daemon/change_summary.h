// What a change will do, as polkit is told it (details its rules can read, and the line its agent
// shows), and as the change worker checks it again: the plan authorized is the plan run.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/change.h"

namespace rocmtune::daemon {

struct ChangeSummary {
  std::vector<std::string> keys;   // the knob keys concerned ("amdgpu.noretry"), never values
  std::vector<std::string> steps;  // "write etc/modprobe.d/rocmtune.conf", "run update-grub", ...
  bool records = false;            // a transaction is recorded even without a step

  bool operator==(const ChangeSummary&) const = default;
  // One line for polkit's message, at most about 400 characters.
  std::string Text() const;
};

ChangeSummary Summarize(const api::ChangeReport& report);

// Whether running `report`'s plan would write anything (and so needs an authorization).
bool WouldWrite(const api::ChangeReport& report);

}  // namespace rocmtune::daemon
