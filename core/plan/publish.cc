#include "plan/publish.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sys/trusted_config.h"
#include "util/json_limits.h"
#include "util/toml_guard.h"
#include "util/toml_reader.h"

namespace rocmtune::plan {

namespace {

constexpr size_t kMaxConfigBytes = 64 * 1024;

bool Alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// An absolute path without empty, "." or ".." parts, control bytes or a trailing slash.
bool CleanAbsolute(std::string_view path) {
  if (path.size() < 2 || path.front() != '/' || path.back() == '/' || path.size() > 1024) return false;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  for (char c : path)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return true;
}

// A published format's table: enabled, directory and the row's own options.
Result<void> ReadTarget(const toml::table& doc, const ExportFormatRow& row, const std::string& origin,
                        ExportConfig& config) {
  const toml::node* node = doc.get(row.name);
  if (!node) return {};
  const toml::table* t = node->as_table();
  std::string where = fmt::format("{}: [{}]", origin, row.name);
  std::vector<TomlKey> keys = {{"enabled", TomlType::kBoolean}, {"directory", TomlType::kString}};
  keys.insert(keys.end(), row.options.begin(), row.options.end());
  if (auto ok = CheckTomlTable(*t, keys, where); !ok) return ok;
  PublishTarget& target = config.Target(row.format);
  target.enabled = TomlBool(*t, "enabled").value_or(false);
  if (auto dir = TomlString(*t, "directory")) {
    if (!CleanAbsolute(*dir))
      return Fail(ErrorCode::kInvalidData,
                  fmt::format("{}: directory must be an absolute path without '.', '..' or empty parts", where));
    target.directory = *dir;
  }
  return row.read_options ? row.read_options(*t, where, config) : Result<void>{};
}

Result<void> CheckText(std::string_view content, size_t limit, std::string_view what) {
  if (content.size() > limit)
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{}: {} bytes, above its limit of {}", what, content.size(), limit));
  if (content.empty() || content.back() != '\n')
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: not text ending in a newline", what));
  for (char c : content)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f)
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: holds a control byte", what));
  return {};
}

}  // namespace

std::string PublishTarget::Path() const {
  return fmt::format("{}/{}", std::string_view(directory).substr(1), Row(format).file);
}

ExportConfig::ExportConfig() {
  for (const ExportFormatRow& row : ExportFormats())
    if (row.Published()) targets.push_back({row.format, false, std::string(row.directory)});
}

const PublishTarget& ExportConfig::Target(ExportFormat format) const {
  return *std::find_if(targets.begin(), targets.end(), [&](const PublishTarget& t) { return t.format == format; });
}

PublishTarget& ExportConfig::Target(ExportFormat format) {
  return *std::find_if(targets.begin(), targets.end(), [&](const PublishTarget& t) { return t.format == format; });
}

bool ExportConfig::AnyEnabled() const {
  return std::any_of(targets.begin(), targets.end(), [](const PublishTarget& t) { return t.enabled; });
}

bool IsLabelValue(std::string_view value) {
  if (value.empty()) return true;
  if (value.size() > 63 || !Alnum(value.front()) || !Alnum(value.back())) return false;
  for (char c : value)
    if (!Alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

bool IsLabelName(std::string_view name) { return !name.empty() && IsLabelValue(name); }

bool IsDnsSubdomain(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('.', start);
    if (end == std::string_view::npos) end = name.size();
    std::string_view part = name.substr(start, end - start);
    if (part.empty() || part.size() > 63 || part.front() == '-' || part.back() == '-') return false;
    for (char c : part)
      if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-'))
        return false;
    start = end + 1;
  }
  return true;
}

Result<ExportConfig> ReadExportConfig(const sys::Root& root) {
  ExportConfig config;
  if (root.TypeOf(kExportConfigPath) == sys::EntryType::kMissing) return config;
  std::string origin = root.Display(kExportConfigPath);
  // It names the directories the helper writes into as root: only root's say may put them there.
  if (auto trusted = sys::CheckTrustedFile(root, kExportConfigPath,
                                           "it names directories root writes into: trusted only when root owns it");
      !trusted)
    return tl::unexpected(trusted.error());
  auto text = root.ReadFile(kExportConfigPath, kMaxConfigBytes);
  if (!text) return tl::unexpected(text.error());
  if (auto ok = CheckTomlBytes(*text, origin); !ok) return tl::unexpected(ok.error());
  auto doc = ParseTomlDocument(*text, origin);
  if (!doc) return tl::unexpected(doc.error());
  std::vector<TomlKey> top;
  for (const ExportFormatRow& row : ExportFormats())
    if (row.Published()) top.push_back({row.name, TomlType::kTable});
  if (auto ok = CheckTomlTable(*doc, top, origin); !ok) return tl::unexpected(ok.error());
  config.present = true;
  for (const ExportFormatRow& row : ExportFormats())
    if (row.Published())
      if (auto ok = ReadTarget(*doc, row, origin, config); !ok) return tl::unexpected(ok.error());
  return config;
}

nlohmann::ordered_json PublishRequestJson(const std::vector<PublishFile>& files) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const PublishFile& f : files) list.push_back({{"format", ExportFormatName(f.format)}, {"content", f.content}});
  return {{"schema", kPublishSchema}, {"files", list}};
}

Result<std::vector<PublishFile>> ParsePublishRequest(std::string_view text) {
  auto doc = ParseBoundedJson(text, "the publish request");
  if (!doc) return tl::unexpected(doc.error());
  const auto& j = *doc;
  // Each member's type is checked before it is read: json::value() throws on another type.
  if (!j.is_object() || j.size() != 2 || !j.contains("schema") || !j["schema"].is_string() ||
      j["schema"].get<std::string>() != kPublishSchema || !j.contains("files") || !j["files"].is_array())
    return Fail(ErrorCode::kInvalidData, fmt::format("the publish request is not {} (schema, files)", kPublishSchema));
  std::vector<PublishFile> out;
  for (const auto& f : j["files"]) {
    if (!f.is_object() || f.size() != 2 || !f.contains("format") || !f["format"].is_string() ||
        !f.contains("content") || !f["content"].is_string())
      return Fail(ErrorCode::kInvalidData, "the publish request: each file is {format, content}");
    std::string name = f["format"].get<std::string>();
    std::optional<ExportFormat> format = ParseExportFormat(name);
    if (!format || !Row(*format).Published())
      return Fail(ErrorCode::kInvalidData, fmt::format("the publish request: unknown format '{}'", name));
    PublishFile file;
    file.format = *format;
    for (const PublishFile& seen : out)
      if (seen.format == file.format)
        return Fail(ErrorCode::kInvalidData, fmt::format("the publish request: {} twice", name));
    file.content = f["content"].get<std::string>();
    out.push_back(std::move(file));
  }
  return out;
}

Result<void> CheckPublishContent(const ExportConfig& config, const PublishFile& file) {
  const ExportFormatRow& row = Row(file.format);
  std::string what = fmt::format("the {} export", row.name);
  if (!row.Published()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: not a published format", what));
  if (auto ok = CheckText(file.content, row.max_bytes, what); !ok) return ok;
  std::string_view text = file.content;
  size_t number = 0;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol + 1);
    ++number;
    if (!row.line_ok(config, line))
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: line {} is not {}", what, number, row.line_rule(config)));
  }
  return {};
}

}  // namespace rocmtune::plan
