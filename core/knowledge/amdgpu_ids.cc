#include "knowledge/amdgpu_ids.h"

#include <fmt/format.h>

#include "util/text.h"

namespace rocmtune::knowledge {

Result<AmdgpuIds> AmdgpuIds::Parse(std::string_view content, std::string_view origin) {
  AmdgpuIds ids;
  for (std::string_view raw : text::SplitLines(content)) {
    std::string_view line = text::Trim(raw);
    if (line.empty() || line.front() == '#') continue;
    if (ids.version_.empty() && line.find(',') == std::string_view::npos) {
      ids.version_ = std::string(line);  // first non-comment line: table version
      continue;
    }
    size_t c1 = line.find(',');
    size_t c2 = c1 == std::string_view::npos ? c1 : line.find(',', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    auto device = text::ParseHex(line.substr(0, c1));
    auto revision = text::ParseHex(line.substr(c1 + 1, c2 - c1 - 1));
    std::string_view name = text::Trim(line.substr(c2 + 1));
    if (!device || !revision || *device > 0xffff || *revision > 0xff || name.empty()) continue;
    ids.names_[{static_cast<uint16_t>(*device), static_cast<uint8_t>(*revision)}] = std::string(name);
  }
  if (ids.names_.empty()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: no entries", origin));
  return ids;
}

std::optional<std::string> AmdgpuIds::Lookup(uint16_t device_id, uint8_t revision) const {
  auto it = names_.find({device_id, revision});
  if (it == names_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> AmdgpuIds::LookupAnyRevision(uint16_t device_id) const {
  std::optional<std::string> found;
  for (auto it = names_.lower_bound({device_id, 0}); it != names_.end() && it->first.first == device_id; ++it) {
    if (found && *found != it->second) return std::nullopt;
    found = it->second;
  }
  return found;
}

}  // namespace rocmtune::knowledge
