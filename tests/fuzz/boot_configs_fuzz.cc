// The boot configurations of the ESP setups, both untrusted text: kernelstub's
// /etc/kernelstub/configuration (boot::ParseKernelstubConfig) and a systemd-boot Type #1 entry
// (boot::ParseLoaderEntry, LoaderEntryOptions). Parsed options are printable, non-empty and
// each one's line lies in the file; an entry's counters are -1 or both set, and its options'
// line numbers rise within the file.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "boot/kernelstub_config.h"
#include "boot/loader_entries.h"
#include "fuzz_support.h"

using namespace rocmtune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parts = fuzz::SplitInput(fuzz::AsText(data, size), 2);
  std::string_view config = parts[0];
  std::string_view entry = parts.size() > 1 ? parts[1] : parts[0];
  const int config_lines = 1 + static_cast<int>(std::count(config.begin(), config.end(), '\n'));
  if (auto c = boot::ParseKernelstubConfig(config)) {
    for (const boot::KernelstubOption& o : c->options) {
      if (o.token.empty() || o.line < 0 || o.line > config_lines) __builtin_trap();
      for (char ch : o.token)
        if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) __builtin_trap();
    }
  }
  if (auto e = boot::ParseLoaderEntry("efi/loader/entries/fuzz+3-1.conf", entry)) {
    if ((e->tries_left < 0) != (e->tries_done < 0) || e->tries_left != 3 || e->tries_done != 1) __builtin_trap();
    (void)boot::LoaderEntryBefore(*e, *e);
  }
  int last = 0;
  const int entry_lines = 1 + static_cast<int>(std::count(entry.begin(), entry.end(), '\n'));
  for (const auto& [line, options] : boot::LoaderEntryOptions(entry)) {
    if (line <= last || line > entry_lines) __builtin_trap();
    last = line;
  }
  return 0;
}
