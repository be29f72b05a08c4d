// One /dev/kmsg record as read(2) returns it (sys/kmsg_record.h), which any process that may write
// /dev/kmsg shapes (its message, its facility), and the bound every kept log message gets.
// Invariants: a record parses or is refused, never crashes; what parses has a level 0..7, a
// message of at most kMaxMessageBytes without NUL, and the same values again when printed back
// the way the kernel prints a record (non-printable bytes and '\' as \xNN); BoundMessage of the
// input keeps no NUL and at most kMaxMessageBytes, a prefix of the input otherwise unchanged.
#include <cstddef>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "fuzz_support.h"
#include "sys/kmsg_record.h"
#include "sys/log_match.h"
#include "sys/system_log.h"

using namespace rocmtune;

namespace {

// printk.c msg_add_ext_text: bytes below ' ', from 127 up, and '\' become "\xNN".
std::string Escape(std::string_view message) {
  std::string out;
  for (char c : message) {
    auto u = static_cast<unsigned char>(c);
    if (u < ' ' || u >= 127 || c == '\\') {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input = fuzz::AsText(data, size);

  std::string bounded = sys::BoundMessage(input);
  if (bounded.size() > sys::kMaxMessageBytes || bounded.find('\0') != std::string::npos) __builtin_trap();
  for (size_t i = 0; i < bounded.size(); ++i) {
    if (bounded[i] != input[i] && !(input[i] == '\0' && bounded[i] == ' ')) __builtin_trap();
  }
  static_cast<void>(sys::KernelLineMatters(input));
  static_cast<void>(sys::ServiceLineMatters(input));

  auto record = sys::ParseKmsgRecord(input);
  if (!record) return 0;
  if (record->level < 0 || record->level > 7 || record->facility < 0) __builtin_trap();
  if (record->message.size() > sys::kMaxMessageBytes || record->message.find('\0') != std::string::npos) {
    __builtin_trap();
  }
  unsigned prio = static_cast<unsigned>(record->facility) << 3 | static_cast<unsigned>(record->level);
  std::string again = fmt::format("{},{},{},-;{}\n", prio, record->seq, record->usec, Escape(record->message));
  auto reread = sys::ParseKmsgRecord(again);
  if (!reread || reread->facility != record->facility || reread->level != record->level || reread->seq != record->seq ||
      reread->usec != record->usec || reread->message != record->message) {
    __builtin_trap();
  }
  return 0;
}
