#include "knowledge/rocm_support.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "util/toml_reader.h"

namespace rocmtune::knowledge {

namespace {

constexpr TomlKey kRocmSupportTopKeys[] = {{"schema_version", TomlType::kInteger}, {"release", TomlType::kTableArray}};
constexpr TomlKey kReleaseKeys[] = {
    {"version", TomlType::kString},
    {"supported", TomlType::kStringArray},
    {"deprecated", TomlType::kStringArray},
    {"unsupported", TomlType::kStringArray},
    {"radeon_ryzen", TomlType::kStringArray},
    {"source", TomlType::kString},
    {"note", TomlType::kString},
};
constexpr int64_t kSchemaVersion = 1;

int Part(const Version& v, size_t i) { return i < v.parts.size() ? v.parts[i] : 0; }

bool SameLine(const Version& a, const Version& b) { return Part(a, 0) == Part(b, 0) && Part(a, 1) == Part(b, 1); }

// "N.N" or "N.N.N", nothing else: ParseVersion alone accepts "6.4.1-120" and "6.4x".
bool IsReleaseVersion(std::string_view text) {
  int dots = 0;
  bool digit_before = false;
  for (char c : text) {
    if (c == '.') {
      if (!digit_before) return false;
      ++dots;
      digit_before = false;
    } else if (c >= '0' && c <= '9') {
      digit_before = true;
    } else {
      return false;
    }
  }
  return digit_before && (dots == 1 || dots == 2);
}

Result<std::vector<std::string>> GfxList(const toml::table& t, std::string_view key, std::string_view where,
                                         const GfxTargetTable& targets, std::set<std::string>& seen) {
  std::vector<std::string> out = TomlStrings(t, key);
  for (const std::string& name : out) {
    if (!targets.ByName(name))
      return Fail(ErrorCode::kInvalidData,
                  fmt::format("{}: {} names '{}', which is not in gfx_targets.toml", where, key, name));
    if (!seen.insert(name).second)
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: '{}' appears twice in the release's lists", where, name));
  }
  return out;
}

Result<RocmRelease> ParseRelease(const toml::table& t, std::string_view origin, const GfxTargetTable& targets) {
  RocmRelease r;
  r.version_text = TomlString(t, "version").value_or("");
  std::string where = fmt::format("{}: release '{}'", origin, r.version_text);
  if (auto ok = CheckTomlTable(t, kReleaseKeys, where); !ok) return tl::unexpected(ok.error());
  auto version = IsReleaseVersion(r.version_text) ? ParseVersion(r.version_text) : std::nullopt;
  if (!version)
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{}: version must be a release number like \"6.4\" or \"6.4.1\"", where));
  r.version = *version;
  std::set<std::string> seen;
  for (auto [key, slot] : {std::pair{"supported", &r.supported}, std::pair{"deprecated", &r.deprecated},
                           std::pair{"unsupported", &r.unsupported}, std::pair{"radeon_ryzen", &r.radeon_ryzen}}) {
    auto list = GfxList(t, key, where, targets, seen);
    if (!list) return tl::unexpected(list.error());
    *slot = std::move(*list);
  }
  if (r.supported.empty()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: supported is empty", where));
  r.source = TomlString(t, "source").value_or("");
  if (r.source.empty()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: no source", where));
  r.note = TomlString(t, "note").value_or("");
  return r;
}

bool Contains(const std::vector<std::string>& list, std::string_view gfx) {
  return std::find(list.begin(), list.end(), gfx) != list.end();
}

}  // namespace

TargetSupport RocmRelease::StatusOf(std::string_view gfx) const {
  if (Contains(supported, gfx)) return TargetSupport::kSupported;
  if (Contains(deprecated, gfx)) return TargetSupport::kDeprecated;
  if (Contains(radeon_ryzen, gfx)) return TargetSupport::kRadeonRyzen;
  if (Contains(unsupported, gfx)) return TargetSupport::kUnsupported;
  return TargetSupport::kNotListed;
}

bool Supports(TargetSupport status) {
  return status == TargetSupport::kSupported || status == TargetSupport::kDeprecated ||
         status == TargetSupport::kRadeonRyzen;
}

Result<RocmSupport> RocmSupport::Parse(std::string_view toml_text, std::string_view origin,
                                       const GfxTargetTable& targets) {
  auto parsed = ParseTomlDocument(toml_text, origin);
  if (!parsed) return tl::unexpected(parsed.error());
  const toml::table& doc = *parsed;
  if (auto ok = CheckTomlTable(doc, kRocmSupportTopKeys, origin); !ok) return tl::unexpected(ok.error());
  if (TomlInt(doc, "schema_version") != kSchemaVersion)
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: schema_version must be {}", origin, kSchemaVersion));
  const std::vector<const toml::table*> entries = TomlTables(doc, "release");
  if (entries.empty()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: no [[release]] entries", origin));
  RocmSupport out;
  for (const toml::table* t : entries) {
    auto release = ParseRelease(*t, origin, targets);
    if (!release) return tl::unexpected(release.error());
    if (!out.releases_.empty() && !(out.releases_.back().version < release->version))
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: release '{}' does not come after '{}'", origin,
                                                       release->version_text, out.releases_.back().version_text));
    out.releases_.push_back(std::move(*release));
  }
  return out;
}

const RocmRelease* RocmSupport::ForInstalled(const Version& installed) const {
  const RocmRelease* best = nullptr;
  for (const RocmRelease& r : releases_)
    if (SameLine(r.version, installed) && !(installed < r.version)) best = &r;
  return best;
}

const RocmRelease* RocmSupport::NearestSupporting(std::string_view gfx, const Version& installed) const {
  const RocmRelease* older = nullptr;
  for (const RocmRelease& r : releases_) {
    if (!Supports(r.StatusOf(gfx))) continue;
    if (installed < r.version) return &r;
    older = &r;
  }
  return older;
}

}  // namespace rocmtune::knowledge
