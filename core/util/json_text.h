// The one way rocmtune prints JSON: sysfs and config contents are not guaranteed UTF-8, so
// invalid sequences become U+FFFD instead of throwing. Down here so that every layer and the
// helper can print a document without depending on the layer that builds status documents.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace rocmtune {

// `indent` < 0: one line.
std::string JsonText(const nlohmann::ordered_json& doc, int indent = 2);

// Whether `text` is one JSON value as far as its brackets, strings and separators show: balanced,
// every string closed, nothing but whitespace after the value. What is between them (numbers,
// literals, the contents of strings) is not checked. rocmtunectl prints rocmtuned's documents
// (JsonText's text from a bus name only root may own) as they came once this holds, instead of
// reading them into a tree to write the same bytes again (a 64-partition MI300X's status is 81 KB:
// BENCHMARKS.md, "Over the bus"); anything else is read with the parser, which says what is wrong.
bool IsWholeJsonText(std::string_view text);

// `s`, or null when it is empty: a document's optional text field.
nlohmann::ordered_json StringOrNull(const std::string& s);

}  // namespace rocmtune
