#include "api/keys.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "knobs/service_backend.h"
#include "knobs/sysfs_attributes.h"
#include "knowledge/catalog.h"
#include "knowledge/env_vars.h"
#include "knowledge/kernel_options.h"

namespace rocmtune::api {

std::vector<std::string> KnobKeys() {
  std::vector<std::string> keys;
  // A removed parameter is still explained, but nobody sets it: completion offers what works.
  for (const knowledge::ModuleParam& param : knowledge::Catalog::Builtin().params())
    if (!param.removed) keys.push_back(param.Key());
  for (const knowledge::KernelOption& option : knowledge::KernelOptions::Builtin().options())
    keys.push_back("cmdline." + option.name);
  for (const knobs::SysfsAttribute& attribute : knobs::SysfsAttributes())
    keys.push_back("sysfs.all." + std::string(attribute.name));
  for (const knowledge::EnvVar& var : knowledge::EnvVars::Builtin().vars()) keys.push_back("env." + var.name);
  keys.emplace_back(knobs::kPpdKey);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

nlohmann::ordered_json KeysJson(const std::vector<std::string>& keys) {
  return {{"schema", "rocmtune.keys.v1"}, {"keys", keys}};
}

}  // namespace rocmtune::api
