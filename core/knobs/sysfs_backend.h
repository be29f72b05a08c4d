// sysfs backend: runtime attributes of amdgpu devices, from an allow-list with their real
// formats (knobs/sysfs_attributes.h). Keys: sysfs.<cardN|PCI slot|all>.<attribute>. Never a raw path from a caller.
#pragma once

#include <memory>

#include "knobs/backend.h"
#include "knobs/sysfs_attributes.h"

namespace rocmtune::knobs {

// The sysfs backend, for the registry (knobs/registry.cc) — the only place that makes backends.
std::unique_ptr<Backend> MakeSysfsBackend();

}  // namespace rocmtune::knobs
