#include "sys/newc_guard.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace rocmtune::sys {
namespace {

constexpr size_t kHeaderSize = 110;  // "070701" and 13 fields of 8 hex digits
constexpr char kTrailer[] = "TRAILER!!!";
constexpr size_t kTrailerNameSize = sizeof kTrailer;  // with its NUL, as the header counts it

uint64_t Align4(uint64_t v) { return (v + 3) & ~uint64_t{3}; }

// Field `index` (0: c_ino ... 5: c_filesize, 10: c_namesize) of a newc header; false when it
// is not 8 hex digits.
bool HexField(const std::string& header, size_t index, uint64_t& out) {
  out = 0;
  for (size_t i = 6 + 8 * index; i < 6 + 8 * (index + 1); ++i) {
    char c = header[i];
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
    if (digit < 0) return false;
    out = out * 16 + static_cast<uint64_t>(digit);
  }
  return true;
}

template <typename... Args>
std::string Format(const char* format, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, static_cast<unsigned long long>(args)...);
  return buf;
}

}  // namespace

bool NewcGuard::Feed(const char* data, size_t size) {
  if (!error_.empty()) return false;
  while (size > 0 && !trailer_) {
    if (pos_ < next_header_) {  // member data or padding
      uint64_t n = std::min<uint64_t>(size, next_header_ - pos_);
      pos_ += n, data += n, size -= static_cast<size_t>(n);
      continue;
    }
    if (want_ == 0) want_ = kHeaderSize;
    size_t n = static_cast<size_t>(std::min<uint64_t>(size, want_ - header_.size()));
    header_.append(data, n);
    data += n, size -= n;
    if (header_.size() < want_) return true;  // the rest comes with the next bytes
    if (!HeaderDone()) return false;
  }
  pos_ += size;
  return true;
}

// A whole header (and, for a possible trailer, its name) is in header_.
bool NewcGuard::HeaderDone() {
  const uint64_t start = next_header_;
  if (header_.compare(0, 6, "070701") != 0 && header_.compare(0, 6, "070702") != 0) {
    error_ = Format("no newc cpio header at byte %llu of the archive (the kernel unpacks only \"070701\"/\"070702\")",
                    start);
    return false;
  }
  uint64_t filesize = 0, namesize = 0;
  if (!HexField(header_, 6, filesize) || !HexField(header_, 11, namesize)) {
    error_ = Format("the cpio header at byte %llu of the archive has a size that is not hexadecimal", start);
    return false;
  }
  const uint64_t after_header = start + kHeaderSize;
  const uint64_t left = capacity_ > after_header ? capacity_ - after_header : 0;
  if (namesize > left) {
    over_ = true;
    error_ = Format(
        "the cpio header at byte %llu of the archive declares a name of %llu bytes, more than the %llu "
        "left in the archive",
        start, namesize, left);
    return false;
  }
  const uint64_t data_start = Align4(after_header + namesize);
  const uint64_t data_left = capacity_ > data_start ? capacity_ - data_start : 0;
  if (filesize > data_left) {
    over_ = true;
    error_ = Format(
        "the cpio header at byte %llu of the archive declares %llu bytes of data, more than the %llu "
        "left in the archive",
        start, filesize, data_left);
    return false;
  }
  if (namesize == kTrailerNameSize && want_ == kHeaderSize) {
    want_ = kHeaderSize + kTrailerNameSize;  // read the name to tell the trailer
    return true;
  }
  if (want_ > kHeaderSize && std::memcmp(header_.data() + kHeaderSize, kTrailer, kTrailerNameSize) == 0)
    trailer_ = true;
  pos_ = start + header_.size();
  next_header_ = Align4(data_start + filesize);
  header_.clear();
  want_ = 0;
  return true;
}

uint64_t NewcGuard::SkippableOf(uint64_t request) const {
  if (trailer_) return request;
  if (!header_.empty() || pos_ >= next_header_) return 0;
  return std::min(request, next_header_ - pos_);
}

}  // namespace rocmtune::sys
