// Step 0 of FindRuntimes: the ROCm a program ships beside itself. ollama's Linux builds carry
// their own HIP runtime and rocBLAS in <exe>/../lib/ollama/rocm and favour it over any other
// (ollama discover/path.go LibOllamaPath, discover/amd_common.go commonAMDValidateLibDir: "Favor
// our bundled version"; GetSupportedGFX reads rocblas/library/TensileLibrary_lazy_gfx*.dat there).
#include <fmt/format.h>

#include "runtime/finders.h"
#include "runtime/resolve.h"

namespace rocmtune::runtime {

std::optional<Runtime> BundledRuntime(const sys::Root& root, std::string_view program) {
  if (program.empty() || !program.starts_with('/')) return std::nullopt;
  auto exe = ResolveInRoot(root, RootRelative(program));
  if (!exe) return std::nullopt;
  const std::string& rel = exe->rel;
  size_t slash = rel.rfind('/');
  std::string name = slash == std::string::npos ? rel : rel.substr(slash + 1);
  std::string bin_dir = slash == std::string::npos ? std::string() : rel.substr(0, slash);
  size_t up = bin_dir.rfind('/');
  std::string prefix = up == std::string::npos ? std::string() : bin_dir.substr(0, up);
  if (name.empty()) return std::nullopt;
  const std::string dir = sys::JoinPath(prefix, fmt::format("lib/{}/rocm", name));
  const std::string library = sys::JoinPath(dir, "rocblas/library");
  if (!HasHipRuntime(root, dir) && !root.Exists(library)) return std::nullopt;

  Runtime runtime;
  runtime.kind = Kind::kBundled;
  runtime.where = Absolute(dir);
  runtime.evidence = exe->links;
  runtime.evidence.push_back(fmt::format("{} loads {} before any other ROCm", program, runtime.where));
  runtime.hip_version = HipVersionIn(root, dir);
  if (runtime.hip_version) {
    // HIP's version shares ROCm's major.minor: libamdhip64.so.6.3.60303 is ROCm 6.3.
    size_t dot = runtime.hip_version->find('.');
    size_t dot2 = dot == std::string::npos ? dot : runtime.hip_version->find('.', dot + 1);
    if (dot2 != std::string::npos) runtime.version = runtime.hip_version->substr(0, dot2);
    runtime.evidence.push_back(fmt::format("{}/libamdhip64.so.{}", runtime.where, *runtime.hip_version));
  }
  AddNamedCode(root, "rocblas", library, runtime.code);
  runtime.label =
      fmt::format("{}'s bundled ROCm{} ({})", name, runtime.version ? " " + *runtime.version : "", runtime.where);
  return runtime;
}

}  // namespace rocmtune::runtime
