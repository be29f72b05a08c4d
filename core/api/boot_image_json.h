// The `boot_image` object of rocmtune.status.v1 and rocmtune.result.v1 (rocmtunectl(1), JSON):
// the initramfs the next boot loads and whether it carries rocmtune's module options
// (boot/boot_image.h). Additive to both schemas: present only when there is something to say.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "boot/boot_image.h"

namespace rocmtune::api {

nlohmann::ordered_json BootImageJson(const boot::BootImageCheck& check);

}  // namespace rocmtune::api
