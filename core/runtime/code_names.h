// GPU target names as they appear in file names and offload bundle entry ids (runtime.h's
// TargetsInNames and Runs are built on these).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rocmtune::runtime {

// The target that `s` starts with ("gfx90a" of "gfx90a:xnack-", "gfx1030" of "gfx1030_36.kdb",
// "gfx10-3-generic" of "gfx10-3-generic.co"), or nullopt when `s` does not start with one.
std::optional<std::string> TargetAtStart(std::string_view s);

// The GPU target of an offload bundle entry id: "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-" ->
// "gfx90a"; nullopt for the host entry and for anything that is not HIP code for amdgcn.
std::optional<std::string> BundleEntryTarget(std::string_view id);

}  // namespace rocmtune::runtime
