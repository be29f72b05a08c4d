#include "api/boot_image_json.h"

#include <nlohmann/json.hpp>

namespace rocmtune::api {

nlohmann::ordered_json BootImageJson(const knobs::BootImageCheck& c) {
  using json = nlohmann::ordered_json;
  return json{{"state", knobs::ImageStateName(c.state)},
              {"image", c.image.empty() ? json(nullptr) : json(c.image)},
              {"kernel", c.kernel.empty() ? json(nullptr) : json(c.kernel)},
              {"configured", c.configured},
              {"carried", c.carried ? json(*c.carried) : json(nullptr)},
              {"message", c.message}};
}

}  // namespace rocmtune::api
