#include "detect/loader_vars.h"

#include <fmt/format.h>

namespace rocmtune::detect {

std::string LoaderVarPath(std::string_view name) {
  return fmt::format("sys/firmware/efi/efivars/{}-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f", name);
}

std::optional<std::string> ReadLoaderString(const sys::Root& root, std::string_view name) {
  auto raw = root.ReadFile(LoaderVarPath(name), 4096);
  if (!raw || raw->size() < 4) return std::nullopt;
  std::string out;
  for (size_t i = 4; i + 1 < raw->size(); i += 2) {
    auto lo = static_cast<unsigned char>((*raw)[i]);
    auto hi = static_cast<unsigned char>((*raw)[i + 1]);
    if (lo == 0 && hi == 0) break;
    if (hi != 0 || lo < 0x20 || lo >= 0x7f) return std::nullopt;
    out += static_cast<char>(lo);
  }
  return out;
}

}  // namespace rocmtune::detect
