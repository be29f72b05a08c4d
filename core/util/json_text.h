// The one way rocmtune prints JSON: sysfs and config contents are not guaranteed UTF-8, so
// invalid sequences become U+FFFD instead of throwing. Down here so that every layer and the
// helper can print a document without depending on the layer that builds status documents.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace rocmtune {

// `indent` < 0: one line.
std::string JsonText(const nlohmann::ordered_json& doc, int indent = 2);

// `s`, or null when it is empty: a document's optional text field.
nlohmann::ordered_json StringOrNull(const std::string& s);

}  // namespace rocmtune
