// The runtime attributes rocmtune set and keeps set: plan::kRuntimeState, one a line,
//   0000:0c:00.0 pp_power_profile_mode COMPUTE BOOTUP_DEFAULT
// (the device's PCI address, the attribute, rocmtune's value, the value it had before rocmtune
// first changed it; values as a person names them). The kernel forgets a runtime attribute at a
// reboot or GPU reset; this file does not. It is written in the same transaction as the
// attribute, so revert, reset and unset keep it right, and it names the device by its PCI address,
// so a card that is numbered differently after a reboot is still found. `status` and `verify`
// compare the devices with it, `reset` and `unset` write the value before back, and the daemon
// writes the values again at boot, hotplug and GPU reset (DesiredRuntime).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sys/root.h"

namespace rocmtune::knobs {

struct RuntimeSetting {
  std::string device;     // PCI address, "0000:0c:00.0"
  std::string attribute;  // a row of SysfsAttributes()
  std::string value;      // what rocmtune keeps set
  std::string before;     // what the device had before rocmtune first set it
  bool operator==(const RuntimeSetting&) const = default;
};

// One word a value of the file may be: letters, digits, '_' (every name the codecs show).
bool IsRuntimeWord(std::string_view word);

// Lines that are not four such words are skipped (the helper never writes one).
std::vector<RuntimeSetting> ParseRuntimeState(std::string_view content);
// The file's text; an empty list is no file (the caller removes it).
std::string RuntimeStateText(std::span<const RuntimeSetting> settings);

// What rocmtune keeps set on the root's devices, as the state file says; empty without one.
std::vector<RuntimeSetting> DesiredRuntime(const sys::Root& root);

}  // namespace rocmtune::knobs
