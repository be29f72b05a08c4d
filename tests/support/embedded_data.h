// The data files' text compiled into rocmtune_unit_tests (tests/CMakeLists.txt): ROCMTUNE_DATA_FILES,
// each as the symbol cmake/Embed.cmake derives from its name. The programs carry the tables
// generated from them instead (knowledge/builtin_data.h).
#pragma once

#include <string_view>

namespace rocmtune::embedded {
extern const std::string_view kAmdgpuIds;
extern const std::string_view kGpusToml;
extern const std::string_view kGfxTargetsToml;
extern const std::string_view kCatalogToml;
extern const std::string_view kKernelOptionsToml;
extern const std::string_view kEnvVarsToml;
extern const std::string_view kKnownIssuesToml;
extern const std::string_view kRocmSupportToml;
extern const std::string_view kRuntimeCodeToml;
}  // namespace rocmtune::embedded
