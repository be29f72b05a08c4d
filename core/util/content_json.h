// File contents inside JSON documents (plans, journal records). JSON strings must be UTF-8,
// configuration files need not be: valid UTF-8 travels as a string, anything else as
// {"base64": "..."}, and a file that does not exist as null. Round trips are byte-exact.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "util/result.h"

namespace rocmtune {

bool IsValidUtf8(std::string_view s);

nlohmann::ordered_json ContentToJson(const std::optional<std::string>& content);
Result<std::optional<std::string>> ContentFromJson(const nlohmann::ordered_json& j, std::string_view what);

std::string Base64Encode(std::string_view bytes);
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace rocmtune
