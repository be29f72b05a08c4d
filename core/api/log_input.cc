#include "api/log_input.h"

#include <fmt/format.h>

#include "util/content_json.h"

namespace rocmtune::api {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length a UTF-8 sequence starting with `lead` has, 0 for a byte no sequence starts with.
size_t SequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

}  // namespace

Result<void> CheckDoctorLogSize(size_t bytes, std::string_view name, size_t max) {
  if (bytes <= max) return {};
  return Fail(ErrorCode::kInvalidArgument,
              fmt::format("the log {} is larger than {} MiB: pass the part around the crash (tail -c {}M)", name,
                          max >> 20, max >> 20));
}

Result<void> CheckDoctorLogText(std::string_view log, size_t max) {
  if (auto size = CheckDoctorLogSize(log.size(), "given", max); !size) return size;
  if (log.find('\0') != std::string_view::npos || !IsValidUtf8(log))
    return Fail(ErrorCode::kInvalidArgument,
                "the log is not UTF-8 text without NUL bytes (rocmtunectl doctor --log replaces such bytes with "
                "U+FFFD before it sends a log)");
  return {};
}

std::string DoctorLogAsText(std::string_view log) {
  std::string out;
  out.reserve(log.size());
  size_t i = 0;
  while (i < log.size()) {
    size_t n = SequenceLength(static_cast<unsigned char>(log[i]));
    if (n > 0 && log[i] != '\0' && i + n <= log.size() && IsValidUtf8(log.substr(i, n))) {
      out.append(log.substr(i, n));
      i += n;
    } else {
      out.append(kReplacement);
      ++i;
    }
  }
  return out;
}

}  // namespace rocmtune::api
