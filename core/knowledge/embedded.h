// Data files compiled into the library (see cmake/Embed.cmake).
#pragma once

#include <string_view>

namespace rocmtune::embedded {
extern const std::string_view kAmdgpuIds;
extern const std::string_view kGpusToml;
extern const std::string_view kGfxTargetsToml;
extern const std::string_view kCatalogToml;
extern const std::string_view kKernelOptionsToml;
extern const std::string_view kEnvVarsToml;
// Built-in profiles (profiles/*.toml); listed for lookup in profiles/profile_store.cc.
extern const std::string_view kProfileStockToml;
extern const std::string_view kProfileRdna1SafeToml;
extern const std::string_view kProfileRdna2ConsumerCompatToml;
extern const std::string_view kProfileStrixHaloToml;
extern const std::string_view kProfileInstinctToml;
}  // namespace rocmtune::embedded
