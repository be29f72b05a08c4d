#include "api/error_json.h"

#include <nlohmann/json.hpp>

namespace rocmtune::api {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kIo: return "io";
    case ErrorCode::kNotFound: return "not-found";
    case ErrorCode::kEscapesRoot: return "escapes-root";
    case ErrorCode::kInvalidData: return "invalid-data";
    case ErrorCode::kTooLarge: return "too-large";
    case ErrorCode::kInvalidArgument: return "invalid-argument";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kNotAuthorized: return "not-authorized";
    case ErrorCode::kBusy: return "busy";
  }
  return "io";
}

namespace {

std::string_view UsualHint(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "see rocmtunectl --help";
    case ErrorCode::kNotAuthorized: return "run it as root (sudo), or ask an administrator";
    case ErrorCode::kUnsupported: return "see rocmtunectl explain and the parameter catalog";
    case ErrorCode::kEscapesRoot: return "a symlink or path leaves the root: check the tree";
    default: return {};
  }
}

}  // namespace

nlohmann::ordered_json ErrorJson(const Error& error, std::string_view hint) {
  using json = nlohmann::ordered_json;
  if (hint.empty()) hint = UsualHint(error.code);
  return json{{"schema", kErrorSchema},
              {"code", ErrorCodeName(error.code)},
              {"message", error.message},
              {"hint", hint.empty() ? json(nullptr) : json(hint)}};
}

}  // namespace rocmtune::api
