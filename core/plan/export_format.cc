#include "plan/export_format.h"

#include <algorithm>
#include <array>
#include <cctype>

#include <fmt/format.h>

#include "plan/publish.h"

namespace rocmtune::plan {

namespace {

bool MetricName(std::string_view name) {
  if (!name.starts_with("rocmtune_")) return false;
  for (char c : name)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

bool PrometheusLine(const ExportConfig&, std::string_view line) {
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

std::string PrometheusRule(const ExportConfig&) { return "a HELP/TYPE line or a sample of a rocmtune_ metric"; }

bool NfdLine(const ExportConfig& config, std::string_view line) {
  std::string prefix = config.nfd_namespace + "/";
  if (line.starts_with("#")) return true;
  if (!line.starts_with(prefix)) return false;
  std::string_view rest = line.substr(prefix.size());
  size_t eq = rest.find('=');
  return eq != std::string_view::npos && IsLabelName(rest.substr(0, eq)) && IsLabelValue(rest.substr(eq + 1));
}

std::string NfdRule(const ExportConfig& config) {
  return fmt::format("a comment or a {}/NAME=VALUE label", config.nfd_namespace);
}

constexpr std::array<TomlKey, 2> kNfdOptions = {
    {{"namespace", TomlType::kString}, {"expiry_minutes", TomlType::kInteger}}};

Result<void> NfdOptions(const toml::table& t, const std::string& where, ExportConfig& config) {
  if (auto v = TomlString(t, "namespace")) {
    if (!IsDnsSubdomain(*v) || *v == "kubernetes.io" || v->ends_with(".kubernetes.io"))
      return Fail(ErrorCode::kInvalidData,
                  fmt::format("{}: namespace must be a lowercase DNS subdomain outside kubernetes.io (nfd-master "
                              "denies that one): '{}'",
                              where, *v));
    config.nfd_namespace = *v;
  }
  if (auto m = TomlInt(t, "expiry_minutes")) {
    if (*m < 1 || *m > 24 * 60)
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: expiry_minutes must be from 1 to 1440", where));
    config.nfd_expiry = std::chrono::minutes(*m);
  }
  return {};
}

// node_exporter's textfile collector reads `*.prom`; NFD's local source every file not starting
// with a dot, at most 64 KiB (NFD docs/usage/customization-guide.md, "Feature files").
constexpr ExportFormatRow kExportFormats[] = {
    {ExportFormat::kPrometheus,
     "prometheus",
     "node_exporter's textfile format",
     "rocmtune.prom",
     "/var/lib/prometheus/node-exporter",
     "node_exporter",
     1 << 20,
     "# HELP rocmtune_",
     PrometheusLine,
     PrometheusRule,
     {},
     nullptr},
    {ExportFormat::kNfd, "nfd", "features.d labels", "rocmtune", "/etc/kubernetes/node-feature-discovery/features.d",
     "node-feature-discovery", 64 * 1024, "# rocmtune ", NfdLine, NfdRule, kNfdOptions, NfdOptions},
    {ExportFormat::kJson, "json", "", "", "", "", 0, "", nullptr, nullptr, {}, nullptr},
};

}  // namespace

std::span<const ExportFormatRow> ExportFormats() { return kExportFormats; }

const ExportFormatRow& Row(ExportFormat format) {
  return *std::find_if(std::begin(kExportFormats), std::end(kExportFormats),
                       [&](const ExportFormatRow& r) { return r.format == format; });
}

std::string_view ExportFormatName(ExportFormat format) { return Row(format).name; }

std::optional<ExportFormat> ParseExportFormat(std::string_view name) {
  for (const ExportFormatRow& r : kExportFormats)
    if (r.name == name) return r.format;
  return std::nullopt;
}

}  // namespace rocmtune::plan
