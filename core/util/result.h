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
  kBusy,           // not now: too many requests of this kind run or wait; ask again
};

struct Error {
  ErrorCode code = ErrorCode::kIo;
  int errno_value = 0;
  std::string message;  // names the path or item; complete enough to print as is
};

// tl::expected<T, Error> with [[nodiscard]] on the type: a call whose Result nobody looks at is a
// -Wunused-result warning, an error under -Werror, so a failure cannot be dropped by accident.
// tl::expected 1.0 (Debian 12) has no [[nodiscard]] of its own, and an alias cannot add one.
// A Result deliberately ignored says so where it is dropped: `static_cast<void>(Call());  // why`.
template <typename T>
class [[nodiscard]] Result : public tl::expected<T, Error> {
 public:
  using Base = tl::expected<T, Error>;
  using Base::Base;
  Result() = default;
  // Implicit: a plain tl::expected<T, Error> (what its own operations return) is a Result.
  Result(Base base) : Base(std::move(base)) {}
};

[[nodiscard]] inline tl::unexpected<Error> Fail(ErrorCode code, std::string message, int errno_value = 0) {
  return tl::unexpected<Error>(Error{code, errno_value, std::move(message)});
}

}  // namespace rocmtune
