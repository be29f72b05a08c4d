#include "util/json_text.h"

#include <nlohmann/json.hpp>

namespace rocmtune {

std::string JsonText(const nlohmann::ordered_json& doc, int indent) {
  return doc.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace rocmtune
