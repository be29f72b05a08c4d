#include "bus/contract.h"

#include <algorithm>

namespace rocmtune::bus {
namespace {

// A failure the table does not know: the daemon's log says what happened.
constexpr std::string_view kSeeJournal = "see `journalctl -u rocmtuned`";

}  // namespace

const std::array<ErrorEntry, 11>& Errors() {
  using api::ChangeStatus;
  // The core's own errors (InvalidArgument, NotFound, ...) say what to do in their message, as
  // on the local path: no hint.
  static const std::array<ErrorEntry, 11> kErrors = {{
      {kErrorInvalidArgument, ErrorCode::kInvalidArgument, true, std::nullopt, kExitUsage, ""},
      {kErrorNotFound, ErrorCode::kNotFound, true, std::nullopt, kExitUsage, ""},
      {kErrorNotSupported, ErrorCode::kUnsupported, true, std::nullopt, kExitRefused, ""},
      {kErrorRefused, ErrorCode::kUnsupported, false, ChangeStatus::kRefused, kExitRefused, ""},
      {kErrorDrift, ErrorCode::kIo, false, ChangeStatus::kDrift, kExitDrift, ""},
      {kErrorBusy, ErrorCode::kBusy, true, std::nullopt, kExitFailed,
       "rocmtuned is busy with another request: try again when it is done"},
      {kErrorFailed, ErrorCode::kIo, false, ChangeStatus::kFailed, kExitFailed, ""},
      {kErrorAccessDenied, ErrorCode::kNotAuthorized, true, ChangeStatus::kNotAuthorized, kExitNotAuthorized,
       "not authorized: run with sudo or as an admin in an active session"},
      {kErrorInteractiveRequired, ErrorCode::kNotAuthorized, false, std::nullopt, kExitNotAuthorized,
       "polkit wants an administrator's password and nothing could ask for it (--no-ask-password, no "
       "terminal, or no polkit agent for this session): run with sudo"},
      {kErrorTimeout, ErrorCode::kIo, false, std::nullopt, kExitFailed,
       "rocmtuned is busy or stuck: see `journalctl -u rocmtuned`"},
      {kErrorNoReply, ErrorCode::kIo, false, std::nullopt, kExitFailed,
       "rocmtuned is busy or stuck: see `journalctl -u rocmtuned`"},
  }};
  return kErrors;
}

const ErrorEntry* FindError(std::string_view name) {
  const auto& errors = Errors();
  auto it = std::find_if(errors.begin(), errors.end(), [name](const ErrorEntry& e) { return e.name == name; });
  return it == errors.end() ? nullptr : &*it;
}

std::string_view ErrorName(ErrorCode code) {
  for (const ErrorEntry& e : Errors())
    if (e.names_code && e.code == code) return e.name;
  return kErrorFailed;
}

std::string_view ErrorName(api::ChangeStatus status) {
  if (status == api::ChangeStatus::kOk) return "";
  for (const ErrorEntry& e : Errors())
    if (e.status == status) return e.name;
  return kErrorFailed;
}

ErrorCode CodeFor(std::string_view name) {
  const ErrorEntry* e = FindError(name);
  return e ? e->code : ErrorCode::kIo;
}

int ExitFor(std::string_view name) {
  const ErrorEntry* e = FindError(name);
  return e ? e->exit_code : kExitFailed;
}

std::string_view HintFor(std::string_view name) {
  if (const ErrorEntry* e = FindError(name)) return e->hint;
  if (name.starts_with(kErrorPrefix)) return "";
  return kSeeJournal;
}

}  // namespace rocmtune::bus
