#include <algorithm>

#include <fmt/format.h>

#include "runtime/finders.h"
#include "runtime/resolve.h"
#include "sys/root.h"

namespace rocmtune::runtime {

void AddNamedCode(const sys::Root& root, std::string_view component, std::string_view dir, std::vector<Code>& code) {
  if (root.ResolvedTypeOf(dir) == sys::EntryType::kMissing) return;
  Code entry;
  entry.component = component;
  entry.path = Absolute(dir);
  auto names = root.ListDir(dir);
  if (names) {
    entry.targets = TargetsInNames(*names);
  } else {
    entry.unread = names.error().message;
  }
  code.push_back(std::move(entry));
}

void AddFatBinaryCode(const sys::Root& root, std::string_view component, std::string_view file,
                      std::vector<Code>& code) {
  if (root.ResolvedTypeOf(file) == sys::EntryType::kMissing) return;
  Code entry;
  entry.component = component;
  entry.path = Absolute(file);
  auto targets = FatBinaryTargets(root, file);
  if (targets) {
    entry.targets = std::move(*targets);
  } else {
    entry.unread = targets.error().message;
  }
  code.push_back(std::move(entry));
}

void AddPrefixCode(const sys::Root& root, std::string_view prefix, std::vector<Code>& code) {
  // rocBLAS and hipBLASLt look for their Tensile kernels in <libdir>/<library>/library beside
  // the shared library (rocBLAS's ROCBLAS_TENSILE_LIBPATH default; ollama discover/amd_linux.go
  // reads the same directory for its supported targets): TensileLibrary_lazy_gfx1030.dat,
  // Kernels.so-000-gfx90a-xnack-.hsaco, TensileLibrary_Type_..._gfx90a.co, extop_gfx942.co.
  AddNamedCode(root, "rocblas", sys::JoinPath(prefix, "lib/rocblas/library"), code);
  AddNamedCode(root, "hipblaslt", sys::JoinPath(prefix, "lib/hipblaslt/library"), code);
  // MIOpen's find and kernel databases, per target and CU count: gfx1030_36.kdb,
  // gfx90a68.HIP.fdb.txt, gfx1030_36.db (PyTorch's wheels copy them to torch/share/miopen/db:
  // pytorch .ci/manywheel/build_rocm.sh MIOPEN_SHARE_DST).
  AddNamedCode(root, "miopen", sys::JoinPath(prefix, "share/miopen/db"), code);
  // TheRock's multi-arch builds keep the GPU code of each library in kernel packs,
  // .kpack/<artifact>_<component>_<target>.kpack (TheRock RELEASES.md, "Installing multi-arch
  // tarballs": blas_lib_gfx1100.kpack).
  AddNamedCode(root, "kpack", sys::JoinPath(prefix, ".kpack"), code);
}

std::vector<std::string> SplitColons(std::string_view list) {
  std::vector<std::string> entries;
  size_t at = 0;
  for (;;) {
    size_t colon = list.find(':', at);
    entries.emplace_back(list.substr(at, colon == std::string_view::npos ? std::string_view::npos : colon - at));
    if (colon == std::string_view::npos) return entries;
    at = colon + 1;
  }
}

std::string RootRelative(std::string_view absolute) {
  while (absolute.starts_with('/')) absolute.remove_prefix(1);
  while (absolute.ends_with('/')) absolute.remove_suffix(1);
  return std::string(absolute);
}

std::vector<std::string> NamesStartingWith(const sys::Root& root, std::string_view dir, std::string_view prefix) {
  std::vector<std::string> found;
  auto names = root.ListDir(dir);
  if (!names) return found;
  for (std::string& name : *names) {
    if (name.starts_with(prefix)) found.push_back(std::move(name));
  }
  return found;
}

bool HasHipRuntime(const sys::Root& root, std::string_view lib_dir) {
  for (const std::string& name : NamesStartingWith(root, lib_dir, "libamdhip64.so")) {
    if (root.ResolvedTypeOf(sys::JoinPath(lib_dir, name)) == sys::EntryType::kFile) return true;
  }
  return false;
}

std::optional<std::string> HipVersionIn(const sys::Root& root, std::string_view lib_dir) {
  // The real file is named for the full version (libamdhip64.so.6.3.60301, Debian's
  // libamdhip64.so.5.2.21153); the links beside it carry the major version only.
  constexpr std::string_view kName = "libamdhip64.so.";
  std::optional<std::string> best;
  for (const std::string& name : NamesStartingWith(root, lib_dir, kName)) {
    std::string version = name.substr(kName.size());
    if (std::count(version.begin(), version.end(), '.') < 2) continue;
    if (!best || version.size() > best->size()) best = version;
  }
  return best;
}

}  // namespace rocmtune::runtime
