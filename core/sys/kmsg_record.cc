#include "sys/kmsg_record.h"

#include <charconv>

#include "sys/log_match.h"

namespace rocmtune::sys {

namespace {

template <typename T>
bool ParseNumber(std::string_view text, T& out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The kernel escapes what is not printable as "\xNN" (and a backslash itself as "\x5c").
std::string Unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size() && text[i + 1] == 'x') {
      int hi = HexDigit(text[i + 2]);
      int lo = HexDigit(text[i + 3]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi << 4 | lo));
        i += 3;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

}  // namespace

std::optional<KmsgRecord> ParseKmsgRecord(std::string_view record) {
  size_t semicolon = record.find(';');
  if (semicolon == std::string_view::npos) return std::nullopt;
  std::string_view header = record.substr(0, semicolon);
  // PRIO, SEQ and USEC; FLAGS and whatever later kernels add after them are not needed.
  std::string_view fields[3];
  for (size_t i = 0; i < 3; ++i) {
    size_t comma = header.find(',');
    if (comma == std::string_view::npos && i < 2) return std::nullopt;
    fields[i] = header.substr(0, comma);
    header.remove_prefix(comma == std::string_view::npos ? header.size() : comma + 1);
  }
  unsigned prio = 0;
  KmsgRecord out;
  if (!ParseNumber(fields[0], prio) || !ParseNumber(fields[1], out.seq) || !ParseNumber(fields[2], out.usec)) {
    return std::nullopt;
  }
  // printk.c: the prefix is a 32-bit value whose low 3 bits are the level, the rest the facility.
  out.level = static_cast<int>(prio & 7U);
  out.facility = static_cast<int>(prio >> 3);
  std::string_view message = record.substr(semicolon + 1);
  // The message ends at the first newline; the dictionary (" KEY=VALUE" lines) is not kept.
  message = message.substr(0, message.find('\n'));
  out.message = BoundMessage(Unescape(message));
  return out;
}

}  // namespace rocmtune::sys
