#include "api/boot_image_json.h"

#include <nlohmann/json.hpp>

namespace rocmtune::api {

nlohmann::ordered_json BootImageJson(const boot::BootImageCheck& c) {
  using Json = nlohmann::ordered_json;
  return Json{{"state", boot::ImageStateName(c.state)},
              {"image", c.image.empty() ? Json(nullptr) : Json(c.image)},
              {"kernel", c.kernel.empty() ? Json(nullptr) : Json(c.kernel)},
              {"configured", c.configured},
              {"carried", c.carried ? Json(*c.carried) : Json(nullptr)},
              {"message", c.message}};
}

}  // namespace rocmtune::api
