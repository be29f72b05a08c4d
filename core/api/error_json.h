// The failure document (schema rocmtune.error.v1): what a front end prints under --json when a
// request fails before it has a document of its own, so a script always reads one document.
#pragma once

#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "util/result.h"

namespace rocmtune::api {

inline constexpr const char* kErrorSchema = "rocmtune.error.v1";

// "io", "not-found", "escapes-root", "invalid-data", "too-large", "invalid-argument",
// "unsupported", "not-authorized": stable names scripts may compare.
std::string_view ErrorCodeName(ErrorCode code);

// {"schema", "code", "message", "hint"}: `hint` says what to do (null when nothing helps);
// empty takes the code's usual advice.
nlohmann::ordered_json ErrorJson(const Error& error, std::string_view hint = {});

}  // namespace rocmtune::api
