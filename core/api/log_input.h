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
// What rocmtuned takes from a caller that is not root: any user may call Doctor, and the daemon
// holds each queued log (daemon/doctor_worker.h) -- a crash's lines and the dmesg around it fit.
inline constexpr size_t kMaxDoctorLogBytesUser = 2u << 20;

// kInvalidArgument, saying what to do, when `log` (named `name` in the message) is larger than
// `max` bytes.
Result<void> CheckDoctorLogSize(size_t bytes, std::string_view name, size_t max = kMaxDoctorLogBytes);

// What rocmtuned's Doctor takes: at most `max` bytes of UTF-8 text without NUL (what a D-Bus
// string can carry). kInvalidArgument otherwise.
Result<void> CheckDoctorLogText(std::string_view log, size_t max = kMaxDoctorLogBytes);

// `log` as a D-Bus string can carry it: every NUL and every byte that does not begin a valid
// UTF-8 sequence becomes U+FFFD. Crash logs hold such bytes (a torn write, a binary dump); the
// lines that name the crash are ASCII and stay as they were.
std::string DoctorLogAsText(std::string_view log);

}  // namespace rocmtune::api
