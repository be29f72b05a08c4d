// Publishing the export (api/export.h) where fleet engines read it: which files, where, and what
// they may hold. The admin names the places in /etc/rocmtune/export.toml (off until enabled);
// the front ends render and hand the text to rocmtune-helper (`publish`), which reads the same
// file itself and writes only these two names, atomically, with content that passes the rules
// here — its allow-list for publishing. Nothing is journaled: an export is rewritten from the
// machine's state every time, and undone by disabling it (the file is removed then).
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "plan/export_format.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::plan {

inline constexpr std::string_view kExportConfigPath = "etc/rocmtune/export.toml";
inline constexpr const char* kPublishSchema = "rocmtune.publish.v1";

// One published format's place (plan/export_format.h: its file name and default directory).
struct PublishTarget {
  ExportFormat format = ExportFormat::kPrometheus;
  bool enabled = false;
  std::string directory;  // absolute, as configured
  // The file's root-relative path ("var/lib/prometheus/node-exporter/rocmtune.prom").
  std::string Path() const;
};

struct ExportConfig {
  ExportConfig();                      // every published format, disabled, in its default directory
  bool present = false;                // the file exists
  std::vector<PublishTarget> targets;  // one per published format, in ExportFormats()' order
  std::string nfd_namespace = "rocmtune.org";
  std::chrono::minutes nfd_expiry{10};
  // The target of a published format (every row with a file has one).
  const PublishTarget& Target(ExportFormat format) const;
  PublishTarget& Target(ExportFormat format);
  bool AnyEnabled() const;
};

// The admin's file; defaults (nothing enabled) when it does not exist. A key outside the
// schema, a wrong type, a relative or unclean directory, a namespace that is no DNS subdomain
// is an error naming the file.
Result<ExportConfig> ReadExportConfig(const sys::Root& root);

struct PublishFile {
  ExportFormat format = ExportFormat::kPrometheus;
  std::string content;
};

nlohmann::ordered_json PublishRequestJson(const std::vector<PublishFile>& files);
// Strict: the schema, known published formats, each at most once, string content.
Result<std::vector<PublishFile>> ParsePublishRequest(std::string_view text);

// What a published file may hold (the helper's rule, checked again whoever rendered it): every
// line as its format's row says (Prometheus: a HELP/TYPE comment or a sample of a `rocmtune_`
// metric; NFD: a comment or `<namespace>/<name>=<value>` within Kubernetes' label rules); text
// only (no NUL or other control byte), ending in a newline, within the row's size limit.
Result<void> CheckPublishContent(const ExportConfig& config, const PublishFile& file);

// Kubernetes' rules for a label's name part and value: at most 63 of [A-Za-z0-9._-], beginning
// and ending alphanumeric (a value may be empty).
bool IsLabelName(std::string_view name);
bool IsLabelValue(std::string_view value);
// A lowercase DNS-1123 subdomain of at most 253 characters (a label prefix).
bool IsDnsSubdomain(std::string_view name);

}  // namespace rocmtune::plan
