// Other programs that write the amdgpu sysfs attributes rocmtune sets, found from their files
// (so a world shows them too): power-profiles-daemon's amdgpu_dpm action, LACT's daemon and
// CoreCtrl's helper. What each one does and when is in its finding (writer.*), with the
// source that says so. The running daemons' own answers over D-Bus (power-profiles-daemon's
// Version and ActionsInfo) are not read here.
#pragma once

#include <string>
#include <vector>

#include "detect/finding.h"
#include "sys/root.h"

namespace rocmtune::detect {

// writer.power-profiles-daemon, writer.lact, writer.corectrl findings for the writers this tree
// has installed and enabled; nothing for one that is absent, disabled or masked.
std::vector<Finding> OtherWriterFindings(const sys::Root& root);

}  // namespace rocmtune::detect
