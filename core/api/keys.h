// `keys`: every knob key rocmtune knows, as `set`, `unset` and `explain` take them. Shell
// completion asks for it (completions/), so the scripts never carry a copy of the tables.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace rocmtune::api {

// Sorted, without duplicates: amdgpu.P and ttm.P of every parameter of the catalog the kernel
// still has, cmdline.O of every kernel option rocmtune knows, sysfs.all.A of every runtime
// attribute (a card or PCI slot in place of `all` works as well), env.V of every variable the
// env backend sets.
std::vector<std::string> KnobKeys();

// rocmtune.keys.v1: {"schema", "keys": [...]}.
nlohmann::ordered_json KeysJson(const std::vector<std::string>& keys);

}  // namespace rocmtune::api
