// A check run on every TOML text before toml++ parses it. toml++ 3.3.0 (Debian 12) reaches
// TOML_UNREACHABLE (__builtin_unreachable: undefined behaviour, not a parse error) in its
// Unicode classification on some non-ASCII characters: outside strings, e.g. the two bytes
// CF BB (U+03FB) or CC AA (github.com/marzer/tomlplusplus/issues/295), and as the first character
// after a line-ending backslash in a """ string (tomlplusplus/issues/190: s = """\<newline>U+00A7""").
// TOML 1.0 allows non-ASCII only in strings and comments (bare keys are A-Za-z0-9_-), so
// refusing it elsewhere and after such a backslash, and refusing invalid UTF-8 anywhere, keeps
// toml++ off those paths and loses no document a person would write.
#pragma once

#include <string_view>

#include "util/result.h"

namespace rocmtune {

// kInvalidData naming `origin` and the line, or nothing when toml++ may see `text`.
Result<void> CheckTomlBytes(std::string_view text, std::string_view origin);

}  // namespace rocmtune
