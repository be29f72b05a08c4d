#include "client/knob_text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rocmtune::client {
std::string KnobWhere(const Doc& knob) {
  std::string file = Field(knob, "file", "");
  if (file.empty()) file = Field(knob, "configured_in", "");  // a document of an older rocmtuned
  if (file.empty()) return "";
  auto line = knob.find("line");
  return line != knob.end() && line->is_number_integer() ? fmt::format("/{}:{}", file, line->get<int>()) : "/" + file;
}

std::string KnobNextBoot(const Doc& knob) {
  if (DocTrue(knob, "ineffective")) return " (ineffective)";
  if (DocTrue(knob, "pending_reboot")) return " (reboot pending)";
  if (DocTrue(knob, "gone_after_reboot")) return " (gone after reboot)";
  return "";
}

}  // namespace rocmtune::client
