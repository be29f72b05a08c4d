// TEMPORARY until the runtime branch lands.
#include "runtime/runtime.h"
#include "util/text.h"
namespace rocmtune::runtime {
std::string_view KindName(Kind kind) {
  switch (kind) { case Kind::kSystem: return "system"; case Kind::kDistro: return "distro"; case Kind::kPath: return "path"; case Kind::kTorch: return "pytorch"; case Kind::kTheRock: return "therock"; }
  return "system";
}
std::vector<Runtime> FindRuntimes(const sys::Root& root, const Env&) {
  std::vector<Runtime> out;
  auto v = root.ReadFile("opt/rocm/.info/version");
  if (!v) return out;
  Runtime r; r.kind = Kind::kSystem; r.where = "/opt/rocm"; r.version = std::string(text::Trim(*v));
  r.label = "system ROCm " + *r.version; r.evidence.push_back("/opt/rocm/.info/version: " + *r.version);
  out.push_back(r);
  return out;
}
bool Runs(std::string_view target, std::string_view isa) { return target == isa; }
std::vector<std::string> TargetsInNames(const std::vector<std::string>&) { return {}; }
Result<std::vector<std::string>> FatBinaryTargets(const sys::Root&, std::string_view) { return Fail(ErrorCode::kNotFound, "stub"); }
}  // namespace rocmtune::runtime
