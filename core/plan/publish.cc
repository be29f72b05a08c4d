#include "plan/publish.h"

#include <array>
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

Result<void> ReadTarget(const toml::table& doc, std::string_view name, const std::string& origin, PublishTarget& target,
                        std::string* ns, std::chrono::minutes* expiry) {
  const toml::node* node = doc.get(name);
  if (!node) return {};
  const toml::table* t = node->as_table();
  std::string where = fmt::format("{}: [{}]", origin, name);
  static constexpr std::array<TomlKey, 2> kPrometheus = {
      {{"enabled", TomlType::kBoolean}, {"directory", TomlType::kString}}};
  static constexpr std::array<TomlKey, 4> kNfd = {{{"enabled", TomlType::kBoolean},
                                                   {"directory", TomlType::kString},
                                                   {"namespace", TomlType::kString},
                                                   {"expiry_minutes", TomlType::kInteger}}};
  if (ns) {
    if (auto ok = CheckTomlTable(*t, kNfd, where); !ok) return ok;
  } else if (auto ok = CheckTomlTable(*t, kPrometheus, where); !ok) {
    return ok;
  }
  target.enabled = TomlBool(*t, "enabled").value_or(false);
  if (auto dir = TomlString(*t, "directory")) {
    if (!CleanAbsolute(*dir))
      return Fail(ErrorCode::kInvalidData,
                  fmt::format("{}: directory must be an absolute path without '.', '..' or empty parts", where));
    target.directory = *dir;
  }
  if (ns) {
    if (auto v = TomlString(*t, "namespace")) {
      if (!IsDnsSubdomain(*v) || *v == "kubernetes.io" || v->ends_with(".kubernetes.io"))
        return Fail(ErrorCode::kInvalidData,
                    fmt::format("{}: namespace must be a lowercase DNS subdomain outside kubernetes.io (nfd-master "
                                "denies that one): '{}'",
                                where, *v));
      *ns = *v;
    }
    if (auto m = TomlInt(*t, "expiry_minutes")) {
      if (*m < 1 || *m > 24 * 60)
        return Fail(ErrorCode::kInvalidData, fmt::format("{}: expiry_minutes must be from 1 to 1440", where));
      *expiry = std::chrono::minutes(*m);
    }
  }
  return {};
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

bool MetricName(std::string_view name) {
  if (!name.starts_with("rocmtune_")) return false;
  for (char c : name)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

bool PrometheusLine(std::string_view line) {
  if (line.starts_with("# HELP ") || line.starts_with("# TYPE ")) {
    std::string_view rest = line.substr(7);
    std::string_view name = rest.substr(0, rest.find(' '));
    if (!MetricName(name)) return false;
    if (line.starts_with("# TYPE ")) {
      std::string_view type = rest.substr(name.size());
      return type == " gauge" || type == " counter";
    }
    return true;
  }
  // NAME[{label="value",...}] VALUE: one unsigned integer, no timestamp (node_exporter's textfile
  // collector refuses them).
  size_t end = line.find_first_of("{ ");
  if (end == std::string_view::npos || !MetricName(line.substr(0, end))) return false;
  if (line[end] == '{') {
    bool quoted = false;
    for (++end; end < line.size(); ++end) {
      char c = line[end];
      if (quoted && c == '\\') ++end;
      else if (c == '"') quoted = !quoted;
      else if (!quoted && c == '}') break;
    }
    if (end >= line.size()) return false;
    ++end;
  }
  std::string_view value = line.substr(end);
  if (value.size() < 2 || value.front() != ' ') return false;
  for (char c : value.substr(1))
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

std::string_view PublishFormatName(PublishFormat format) {
  return format == PublishFormat::kNfd ? "nfd" : "prometheus";
}

std::string PublishTarget::Path() const {
  std::string_view file = format == PublishFormat::kNfd ? kNfdFile : kPrometheusFile;
  return fmt::format("{}/{}", std::string_view(directory).substr(1), file);
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
  static constexpr std::array<TomlKey, 2> kTop = {{{"prometheus", TomlType::kTable}, {"nfd", TomlType::kTable}}};
  if (auto ok = CheckTomlTable(*doc, kTop, origin); !ok) return tl::unexpected(ok.error());
  config.present = true;
  if (auto ok = ReadTarget(*doc, "prometheus", origin, config.prometheus, nullptr, nullptr); !ok)
    return tl::unexpected(ok.error());
  if (auto ok = ReadTarget(*doc, "nfd", origin, config.nfd, &config.nfd_namespace, &config.nfd_expiry); !ok)
    return tl::unexpected(ok.error());
  return config;
}

nlohmann::ordered_json PublishRequestJson(const std::vector<PublishFile>& files) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const PublishFile& f : files) list.push_back({{"format", PublishFormatName(f.format)}, {"content", f.content}});
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
    PublishFile file;
    if (name == "nfd") file.format = PublishFormat::kNfd;
    else if (name != "prometheus")
      return Fail(ErrorCode::kInvalidData, fmt::format("the publish request: unknown format '{}'", name));
    for (const PublishFile& seen : out)
      if (seen.format == file.format)
        return Fail(ErrorCode::kInvalidData, fmt::format("the publish request: {} twice", name));
    file.content = f["content"].get<std::string>();
    out.push_back(std::move(file));
  }
  return out;
}

Result<void> CheckPublishContent(const ExportConfig& config, const PublishFile& file) {
  bool nfd = file.format == PublishFormat::kNfd;
  std::string what = fmt::format("the {} export", PublishFormatName(file.format));
  if (auto ok = CheckText(file.content, nfd ? kMaxNfdBytes : kMaxPrometheusBytes, what); !ok) return ok;
  std::string_view text = file.content;
  size_t number = 0;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol + 1);
    ++number;
    bool ok = false;
    if (nfd) {
      std::string prefix = config.nfd_namespace + "/";
      if (line.starts_with("#")) {
        ok = true;
      } else if (line.starts_with(prefix)) {
        std::string_view rest = line.substr(prefix.size());
        size_t eq = rest.find('=');
        ok = eq != std::string_view::npos && IsLabelName(rest.substr(0, eq)) && IsLabelValue(rest.substr(eq + 1));
      }
    } else {
      ok = PrometheusLine(line);
    }
    if (!ok)
      return Fail(ErrorCode::kInvalidData,
                  fmt::format("{}: line {} is not {}", what, number,
                              nfd ? fmt::format("a comment or a {}/NAME=VALUE label", config.nfd_namespace)
                                  : std::string("a HELP/TYPE line or a sample of a rocmtune_ metric")));
  }
  return {};
}

}  // namespace rocmtune::plan
