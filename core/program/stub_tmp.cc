// TEMPORARY until the program branch lands.
#include <algorithm>
#include "program/context.h"
#include "program/visible.h"
#include "knowledge/gfx_targets.h"
namespace rocmtune::program {
std::string_view ContextKindName(ContextKind kind) {
  switch (kind) { case ContextKind::kCaller: return "caller"; case ContextKind::kUnit: return "unit"; case ContextKind::kUserUnit: return "user-unit"; case ContextKind::kConda: return "conda"; case ContextKind::kEnvFile: return "env-file"; }
  return "caller";
}
std::map<std::string, std::optional<std::string>> Values(const Context& c) { std::map<std::string, std::optional<std::string>> m; for (const auto& s : c.env) m[s.name] = s.value; return m; }
std::map<std::string, std::string> KnownValues(const Context& c) { std::map<std::string, std::string> m; for (const auto& [k, v] : Values(c)) if (v) m[k] = *v; return m; }
Result<Context> UnitContext(const sys::Root&, std::string_view, bool, std::string_view) { return Fail(ErrorCode::kNotFound, "stub"); }
Result<Context> CondaContext(const sys::Root&, std::string_view, std::string_view, const std::vector<knobs::EnvSetting>&) { return Fail(ErrorCode::kNotFound, "stub"); }
Result<Context> EnvFileContext(const sys::Root&, std::string_view) { return Fail(ErrorCode::kNotFound, "stub"); }
std::vector<Context> ServiceContexts(const sys::Root&) { return {}; }
bool Visibility::Sees(std::string_view id) const { return std::find(hip_order.begin(), hip_order.end(), id) != hip_order.end(); }
std::optional<int> Visibility::HipIndex(std::string_view id) const { auto it = std::find(hip_order.begin(), hip_order.end(), id); if (it == hip_order.end()) return std::nullopt; return static_cast<int>(it - hip_order.begin()); }
Visibility VisibleGpus(const detect::Inventory& inv, const std::map<std::string, std::string>&) {
  std::vector<const detect::Gpu*> g; for (const auto& x : inv.gpus) if (x.kfd_node) g.push_back(&x);
  std::sort(g.begin(), g.end(), [](auto* a, auto* b) { return *a->kfd_node < *b->kfd_node; });
  Visibility v; for (auto* x : g) { v.hip_order.push_back(x->id); v.rocr_order.push_back(x->id); } return v;
}
std::optional<Override> OverrideFor(const detect::Inventory&, const detect::Gpu&, const std::map<std::string, std::string>& env) {
  auto it = env.find("HSA_OVERRIDE_GFX_VERSION"); if (it == env.end()) return std::nullopt;
  Override o{it->first, it->second, std::nullopt};
  unsigned a = 0, b = 0, c = 0; if (std::sscanf(it->second.c_str(), "%u.%u.%u", &a, &b, &c) == 3) o.gfx = knowledge::GfxNameFromVersion(a * 10000 + b * 100 + c);
  return o;
}
}  // namespace rocmtune::program
