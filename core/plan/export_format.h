// The export's formats (api/export.h), one row each: the only place a format is named. Each layer
// reads what it needs from the row — the CLI its name and help, the helper's publish its file,
// directory, size limit and line rule, the admin's export.toml its table — and core/api adds the
// renderer (api/export_render.cc). A new format is one row here plus its renderer there.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "util/result.h"
#include "util/toml_reader.h"

namespace rocmtune::plan {

enum class ExportFormat { kPrometheus, kNfd, kJson };

struct ExportConfig;

struct ExportFormatRow {
  ExportFormat format;
  std::string_view name;  // --format, the publish request's "format", export.toml's [table]
  std::string_view help;  // what it is, in --format's help; empty: nothing to add to the name
  // Published (`export --write`, rocmtuned) only with a file name: the file in `directory`
  // (export.toml's, or this default) its engine reads. Empty: printed only.
  std::string_view file;
  std::string_view directory;
  std::string_view engine;  // the program that reads the file: "is it installed?"
  size_t max_bytes = 0;
  std::string_view ours;  // how a file rocmtune wrote begins: only such a file is removed
  // The content rule of the helper: whether one line may be published, and what one must be.
  bool (*line_ok)(const ExportConfig& config, std::string_view line) = nullptr;
  std::string (*line_rule)(const ExportConfig& config) = nullptr;
  // Keys of its export.toml table besides `enabled` and `directory`, and their reader.
  std::span<const TomlKey> options;
  Result<void> (*read_options)(const toml::table& table, const std::string& where, ExportConfig& config) = nullptr;
  bool Published() const { return !file.empty(); }
};

std::span<const ExportFormatRow> ExportFormats();
const ExportFormatRow& Row(ExportFormat format);
std::string_view ExportFormatName(ExportFormat format);
std::optional<ExportFormat> ParseExportFormat(std::string_view name);

}  // namespace rocmtune::plan
