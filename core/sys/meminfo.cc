#include "sys/meminfo.h"

#include "util/text.h"

namespace rocmtune::sys {

std::optional<uint64_t> MemTotalKib(const Root& root) {
  auto content = root.ReadFile("proc/meminfo", 64 * 1024);
  if (!content) return std::nullopt;
  for (std::string_view line : text::SplitLines(*content)) {
    if (!line.starts_with("MemTotal:")) continue;
    auto tokens = text::Tokens(line.substr(9));
    // fs/proc/meminfo.c prints "MemTotal:  <n> kB"; any other shape is not trusted.
    if (tokens.size() != 2 || tokens[1] != "kB") return std::nullopt;
    auto kib = text::ParseU64(tokens[0]);
    if (!kib || *kib == 0) return std::nullopt;
    return kib;
  }
  return std::nullopt;
}

}  // namespace rocmtune::sys
