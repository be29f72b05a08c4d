// FindRuntimes: the discovery order of runtime.h, each step in its own file (runtime/finders.h).
#include <set>

#include "runtime/finders.h"
#include "runtime/runtime.h"

namespace rocmtune::runtime {

std::string_view KindName(Kind kind) {
  switch (kind) {
    case Kind::kSystem: return "system";
    case Kind::kDistro: return "distro";
    case Kind::kPath: return "path";
    case Kind::kTorch: return "pytorch";
    case Kind::kTheRock: return "therock";
    case Kind::kBundled: return "bundled";
  }
  return "unknown";
}

std::vector<Runtime> FindRuntimes(const sys::Root& root, const Env& env, std::string_view program) {
  std::vector<Runtime> found;
  if (auto bundled = BundledRuntime(root, program)) found.push_back(std::move(*bundled));
  for (Runtime& runtime : PythonRuntimes(root, env)) found.push_back(std::move(runtime));
  for (Runtime& runtime : LibraryPathRuntimes(root, env)) found.push_back(std::move(runtime));
  if (auto system = SystemRocm(root, env)) found.push_back(std::move(*system));
  if (auto distro = DistroRuntime(root)) found.push_back(std::move(*distro));
  // One runtime per prefix, where it is found first (LD_LIBRARY_PATH=/opt/rocm/lib and /opt/rocm
  // are the same ROCm; the loader takes LD_LIBRARY_PATH's first).
  std::vector<Runtime> runtimes;
  std::set<std::string> seen;
  for (Runtime& runtime : found) {
    if (seen.insert(runtime.where).second) runtimes.push_back(std::move(runtime));
  }
  return runtimes;
}

}  // namespace rocmtune::runtime
