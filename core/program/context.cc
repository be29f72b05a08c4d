#include "program/context.h"

namespace rocmtune::program {

std::string_view ContextKindName(ContextKind kind) {
  switch (kind) {
    case ContextKind::kCaller: return "caller";
    case ContextKind::kUnit: return "unit";
    case ContextKind::kUserUnit: return "user-unit";
    case ContextKind::kConda: return "conda";
    case ContextKind::kEnvFile: return "env-file";
  }
  return "caller";
}

std::map<std::string, std::optional<std::string>> Values(const Context& context) {
  std::map<std::string, std::optional<std::string>> out;
  for (const knobs::EnvSetting& s : context.env) out[s.name] = s.value;
  return out;
}

std::map<std::string, std::string> KnownValues(const Context& context) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : Values(context))
    if (value) out.emplace(name, *value);
  return out;
}

}  // namespace rocmtune::program
