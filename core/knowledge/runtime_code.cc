#include "knowledge/runtime_code.h"

#include <algorithm>
#include <array>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "knowledge/known_issues.h"
#include "util/toml_reader.h"

namespace rocmtune::knowledge {

namespace {

constexpr TomlKey kRuntimeCodeTopKeys[] = {{"schema_version", TomlType::kInteger, true},
                                           {"build", TomlType::kTableArray}};
constexpr TomlKey kCodeBuildKeys[] = {
    {"kind", TomlType::kString, true},   {"version", TomlType::kString, true}, {"rocm", TomlType::kString},
    {"targets", TomlType::kStringArray}, {"source", TomlType::kString},        {"note", TomlType::kString},
};
constexpr int64_t kRuntimeCodeSchemaVersion = 1;
constexpr std::array<std::string_view, 3> kCodeKinds = {"pytorch", "rocm", "therock"};

using MajorMinor = std::pair<int, int>;

// The major.minor a version text starts with: "2.4.1+rocm6.1" -> (2, 4), "7.14.0a20260609" ->
// (7, 14), "6" -> (6, 0).
std::optional<MajorMinor> ReleaseLineOf(std::string_view text) {
  auto v = ParseVersion(text);
  if (!v) return std::nullopt;
  return MajorMinor{v->parts[0], v->parts.size() > 1 ? v->parts[1] : 0};
}

// Exactly "N.N": the table names release lines, not releases.
bool IsReleaseLine(std::string_view text) {
  size_t dot = text.find('.');
  auto digits = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  return dot != std::string_view::npos && digits(text.substr(0, dot)) && digits(text.substr(dot + 1));
}

Result<CodeBuild> ParseBuild(const toml::table& t, std::string_view where, const GfxTargetTable& targets) {
  if (auto ok = CheckTomlTable(t, kCodeBuildKeys, where); !ok) return tl::unexpected(ok.error());
  CodeBuild b;
  b.kind = TomlString(t, "kind").value_or("");
  if (std::find(kCodeKinds.begin(), kCodeKinds.end(), b.kind) == kCodeKinds.end())
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{}: kind '{}' is not one of pytorch, rocm, therock", where, b.kind));
  b.version = TomlString(t, "version").value_or("");
  if (!IsReleaseLine(b.version))
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{}: version '{}' must be a release line like \"6.2\"", where, b.version));
  b.rocm = TomlString(t, "rocm");
  if (b.kind == "pytorch" && !b.rocm)
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: a pytorch build needs rocm", where));
  if (b.kind != "pytorch" && b.rocm)
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: rocm is for pytorch builds only", where));
  if (b.rocm && !IsReleaseLine(*b.rocm))
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{}: rocm '{}' must be a release line like \"6.2\"", where, *b.rocm));
  b.targets = TomlStrings(t, "targets");
  if (b.targets.empty()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: no targets", where));
  std::set<std::string_view> seen;
  for (const std::string& gfx : b.targets) {
    if (!targets.ByName(gfx))
      return Fail(ErrorCode::kInvalidData,
                  fmt::format("{}: targets names '{}', which is not in gfx_targets.toml", where, gfx));
    if (!seen.insert(gfx).second)
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: '{}' appears twice in targets", where, gfx));
  }
  b.source = TomlString(t, "source").value_or("");
  if (b.source.empty()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: no source", where));
  b.note = TomlString(t, "note").value_or("");
  return b;
}

// Within a kind, builds ascend by version (and, for one torch minor, by ROCm).
bool ComesAfter(const CodeBuild& later, const CodeBuild& earlier) {
  auto key = [](const CodeBuild& b) {
    return std::pair{*ReleaseLineOf(b.version), ReleaseLineOf(b.rocm.value_or("0"))};
  };
  return key(earlier) < key(later);
}

}  // namespace

bool CodeBuild::Carries(std::string_view gfx) const {
  return std::find(targets.begin(), targets.end(), gfx) != targets.end();
}

Result<RuntimeCode> RuntimeCode::Parse(std::string_view toml, std::string_view origin, const GfxTargetTable& targets) {
  auto parsed = ParseTomlDocument(toml, origin);
  if (!parsed) return tl::unexpected(parsed.error());
  if (auto ok = CheckTomlTable(*parsed, kRuntimeCodeTopKeys, origin); !ok) return tl::unexpected(ok.error());
  if (TomlInt(*parsed, "schema_version") != kRuntimeCodeSchemaVersion)
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{}: schema_version must be {}", origin, kRuntimeCodeSchemaVersion));
  const std::vector<const toml::table*> entries = TomlTables(*parsed, "build");
  if (entries.empty()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: no [[build]] entries", origin));
  RuntimeCode out;
  for (size_t i = 0; i < entries.size(); ++i) {
    const toml::table& t = *entries[i];
    std::string label =
        fmt::format("{} {}{}", TomlString(t, "kind").value_or("?"), TomlString(t, "version").value_or("?"),
                    TomlString(t, "rocm") ? "+rocm" + *TomlString(t, "rocm") : "");
    std::string where = TomlEntryName(origin, "build", i, label);
    auto build = ParseBuild(t, where, targets);
    if (!build) return tl::unexpected(build.error());
    for (const CodeBuild& before : out.builds_)
      if (before.kind == build->kind && !ComesAfter(*build, before))
        return Fail(ErrorCode::kInvalidData, fmt::format("{}: does not come after {} {}{}", where, before.kind,
                                                         before.version, before.rocm ? "+rocm" + *before.rocm : ""));
    out.builds_.push_back(std::move(*build));
  }
  return out;
}

const CodeBuild* RuntimeCode::Find(std::string_view kind, std::string_view version,
                                   std::optional<std::string_view> rocm) const {
  const auto line = ReleaseLineOf(version);
  if (!line) return nullptr;
  const auto rocm_line = rocm ? ReleaseLineOf(*rocm) : std::nullopt;
  if (rocm && !rocm_line) return nullptr;
  for (const CodeBuild& b : builds_) {
    if (b.kind != kind || ReleaseLineOf(b.version) != line) continue;
    if (rocm_line && (!b.rocm || ReleaseLineOf(*b.rocm) != rocm_line)) continue;
    return &b;
  }
  return nullptr;
}

}  // namespace rocmtune::knowledge
