// The built-in profiles (profiles/*.toml), compiled into rocmtune-profiles (see cmake/Embed.cmake);
// listed for lookup in profiles/profile_store.cc.
#pragma once

#include <string_view>

namespace rocmtune::embedded {
extern const std::string_view kProfileStockToml;
extern const std::string_view kProfileRdna1SafeToml;
extern const std::string_view kProfileRdna2ConsumerCompatToml;
extern const std::string_view kProfileStrixHaloToml;
extern const std::string_view kProfileInstinctToml;
}  // namespace rocmtune::embedded
