#include "detect/ip_discovery.h"

#include <fmt/format.h>

#include "util/text.h"

namespace rocmtune::detect {
namespace {

std::optional<uint64_t> ReadNumber(const sys::Root& root, const std::string& path) {
  auto content = root.ReadFile(path, 64);
  if (!content) return std::nullopt;
  return text::ParseU64(text::Clean(*content));
}

}  // namespace

std::optional<std::string> ReadGcIpVersion(const sys::Root& root, std::string_view device_dir) {
  if (!root.IsDirectory(fmt::format("{}/ip_discovery", device_dir))) return std::nullopt;  // pre-discovery ASICs
  for (std::string_view block : {std::string_view("GC"), kGcHwId}) {
    std::string base = fmt::format("{}/ip_discovery/die/0/{}/0", device_dir, block);
    auto major = ReadNumber(root, base + "/major");
    auto minor = ReadNumber(root, base + "/minor");
    auto revision = ReadNumber(root, base + "/revision");
    if (major && minor && revision && *major < 256 && *minor < 256 && *revision < 256)
      return fmt::format("{}.{}.{}", *major, *minor, *revision);
  }
  return std::nullopt;
}

}  // namespace rocmtune::detect
