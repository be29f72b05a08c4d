// libdrm enrichment for live hardware: fills what sysfs left unknown (revision, APU flag,
// marketing name) by asking the kernel through /dev/dri/renderD*. Only ever used when the
// root is "/"; a device that cannot be opened leaves the GPU as it was.
#pragma once

#include <vector>

#include "detect/inventory.h"

namespace rocmtune::detect {

void EnrichWithLibdrm(std::vector<Gpu>& gpus);

}  // namespace rocmtune::detect
