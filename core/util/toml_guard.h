// A check run on every TOML text before toml++ parses it. toml++ 3.3.0 (Debian 12) reaches
// __builtin_unreachable() in its Unicode tables on some non-ASCII bytes outside strings, e.g.
// the two bytes CF BB (U+03FB) or CC AA (upstream marzer/tomlplusplus issues 190 and 295, fixed
// in later releases): undefined behaviour, not a parse error. TOML 1.0 allows non-ASCII only in
// strings and comments (bare keys are A-Za-z0-9_-), so refusing it elsewhere, and refusing
// invalid UTF-8 anywhere, loses no valid document and keeps toml++ off that path.
#pragma once

#include <string_view>

#include "util/result.h"

namespace rocmtune {

// kInvalidData naming `origin` and the line, or nothing when toml++ may see `text`.
Result<void> CheckTomlBytes(std::string_view text, std::string_view origin);

}  // namespace rocmtune
