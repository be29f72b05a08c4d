#include "helper/daemon_account.h"

#include <charconv>
#include <string>

namespace rocmtune::helper {
namespace {

// Account files are small (one line per account); a bigger one is not read.
constexpr size_t kMaxAccountFileBytes = 4 << 20;

std::optional<uint32_t> IdInFile(const sys::Root& root, std::string_view file, std::string_view name) {
  auto text = root.ReadFile(file, kMaxAccountFileBytes);
  if (!text) return std::nullopt;
  return AccountIdIn(*text, name);
}

}  // namespace

std::optional<uint32_t> AccountIdIn(std::string_view text, std::string_view name) {
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    // NAME:PASSWORD:ID:... (passwd(5), group(5)).
    size_t first = line.find(':');
    if (first == std::string_view::npos || line.substr(0, first) != name) continue;
    size_t second = line.find(':', first + 1);
    if (second == std::string_view::npos) return std::nullopt;
    std::string_view field = line.substr(second + 1);
    field = field.substr(0, field.find(':'));
    uint32_t id = 0;
    auto [end, err] = std::from_chars(field.data(), field.data() + field.size(), id);
    // "(uint32_t)-1" is no id (chown(2) reads it as "leave unchanged").
    if (err != std::errc() || end != field.data() + field.size() || field.empty() || id == UINT32_MAX)
      return std::nullopt;
    return id;
  }
  return std::nullopt;
}

std::optional<uid_t> DaemonUid(const sys::Root& root) { return IdInFile(root, "etc/passwd", kDaemonAccount); }

std::optional<gid_t> DaemonGid(const sys::Root& root) { return IdInFile(root, "etc/group", kDaemonAccount); }

}  // namespace rocmtune::helper
