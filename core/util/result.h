// Result<T>: the error type every core function returns instead of throwing.
#pragma once

#include <string>
#include <utility>

#include <tl/expected.hpp>

namespace rocmtune {

enum class ErrorCode {
  kIo,           // a system call failed; errno_value says why
  kNotFound,     // the path or item does not exist
  kEscapesRoot,  // a path or symlink tried to leave the Root
  kInvalidData,  // content could not be parsed
  kTooLarge,     // content over the size we accept
  kInvalidArgument,
  kUnsupported,
  kNotAuthorized,  // the caller may not do this (not root, polkit said no)
};

struct Error {
  ErrorCode code = ErrorCode::kIo;
  int errno_value = 0;
  std::string message;  // names the path or item; complete enough to print as is
};

template <typename T>
using Result = tl::expected<T, Error>;

[[nodiscard]] inline tl::unexpected<Error> Fail(ErrorCode code, std::string message, int errno_value = 0) {
  return tl::unexpected<Error>(Error{code, errno_value, std::move(message)});
}

}  // namespace rocmtune
