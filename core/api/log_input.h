// The crash log `doctor --log` reads, and rocmtuned's Doctor(log) takes: one bound and one
// rule for both ends.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "util/result.h"

namespace rocmtune::api {

// A crash log is text a person pasted; more than this is not a log of one crash. Larger logs are
// refused (not cut): a cut log could lose the crash, and the user can pick the part (tail -c).
inline constexpr size_t kMaxDoctorLogBytes = 16u << 20;

// kInvalidArgument, saying what to do, when `log` (named `name` in the message) is larger than
// kMaxDoctorLogBytes.
Result<void> CheckDoctorLogSize(size_t bytes, std::string_view name);

// What rocmtuned's Doctor takes: at most kMaxDoctorLogBytes of UTF-8 text without NUL (what a
// D-Bus string can carry). kInvalidArgument otherwise.
Result<void> CheckDoctorLogText(std::string_view log);

// `log` as a D-Bus string can carry it: every NUL and every byte that does not begin a valid
// UTF-8 sequence becomes U+FFFD. Crash logs hold such bytes (a torn write, a binary dump); the
// lines that name the crash are ASCII and stay as they were.
std::string DoctorLogAsText(std::string_view log);

}  // namespace rocmtune::api
