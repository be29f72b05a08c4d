// A journal file as the helper and `history` read it after a crash: any bytes, a torn tail.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "journal/journal.h"

using namespace rocmtune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::AsText(data, size);
  size_t intact = journal::IntactLength(text);
  if (intact > text.size()) __builtin_trap();
  (void)journal::ParseTransaction(text, "var/lib/rocmtune/journal/fuzz");
  return 0;
}
