#include "client/knob_text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rocmtune::client {
namespace {

bool Flag(const Doc& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

std::string KnobWhere(const Doc& knob) {
  std::string file = Field(knob, "file", "");
  if (file.empty()) file = Field(knob, "configured_in", "");  // a document of an older rocmtuned
  if (file.empty()) return "";
  auto line = knob.find("line");
  return line != knob.end() && line->is_number_integer() ? fmt::format("/{}:{}", file, line->get<int>()) : "/" + file;
}

std::string KnobNextBoot(const Doc& knob) {
  if (Flag(knob, "ineffective")) return " (ineffective)";
  if (Flag(knob, "pending_reboot")) return " (reboot pending)";
  if (Flag(knob, "gone_after_reboot")) return " (gone after reboot)";
  return "";
}

}  // namespace rocmtune::client
