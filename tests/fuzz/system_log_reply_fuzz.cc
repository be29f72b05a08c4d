// What rocmtuned reads from rocmtune-helper's `read-log` reply and what the helper reads of the
// request's query (sys/system_log_json.h): parsed strictly; what parses prints and parses back
// equal, and a reply printed again stays within its bound.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "sys/system_log_json.h"

using namespace rocmtune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto text = fuzz::AsText(data, size);
  if (auto query = sys::LogQueryFromJson(text)) {
    auto again = sys::LogQueryFromJson(sys::LogQueryJson(*query));
    if (!again || again->boot != query->boot || again->since_usec != query->since_usec ||
        again->after_cursor != query->after_cursor)
      __builtin_trap();
  }
  auto read = sys::LogReadFromJson(text);
  if (!read) return 0;
  const std::string printed = sys::LogReadJson(*read);
  if (printed.size() > sys::kMaxLogReplyBytes) __builtin_trap();
  auto again = sys::LogReadFromJson(printed);
  if (!again || again->source != read->source || again->last_cursor != read->last_cursor ||
      again->entries.size() > read->entries.size() || again->boots.size() != read->boots.size())
    __builtin_trap();
  return 0;
}
