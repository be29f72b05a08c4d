// libdrm's amdgpu.ids marketing-name table: "DEVID,\tREV,\tName" lines after a version line.
// A newer copy is compiled in (data/amdgpu.ids); the system's copy is the fallback.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "util/result.h"

namespace rocmtune::knowledge {

struct BuiltinData;

class AmdgpuIds {
 public:
  static const AmdgpuIds& Builtin();
  // Lines that do not parse are skipped (the file is data from outside); an input with no
  // entry at all is an error.
  static Result<AmdgpuIds> Parse(std::string_view content, std::string_view origin);

  std::optional<std::string> Lookup(uint16_t device_id, uint8_t revision) const;
  // The name when every revision of the device has the same one (used when the revision is
  // unknown); nullopt when revisions differ.
  std::optional<std::string> LookupAnyRevision(uint16_t device_id) const;
  const std::string& version() const { return version_; }
  size_t size() const { return names_.size(); }

  bool operator==(const AmdgpuIds&) const = default;

 private:
  friend struct BuiltinData;  // builds the table the build generated (knowledge/builtin_data.h)
  std::string version_;
  std::map<std::pair<uint16_t, uint8_t>, std::string> names_;
};

}  // namespace rocmtune::knowledge
