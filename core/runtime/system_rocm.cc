// Steps 3 to 5 of FindRuntimes: LD_LIBRARY_PATH, ROCM_PATH or /opt/rocm, the distribution's
// libraries.
#include <cctype>

#include <fmt/format.h>

#include "runtime/finders.h"
#include "runtime/resolve.h"
#include "sys/dpkg_status.h"
#include "util/text.h"

namespace rocmtune::runtime {
namespace {

// Bounds what a hostile environment can make us look at.
constexpr size_t kMaxLibraryPathEntries = 64;

std::string LastComponent(std::string_view rel) {
  size_t slash = rel.rfind('/');
  return std::string(slash == std::string_view::npos ? rel : rel.substr(slash + 1));
}

std::string WithoutLastComponent(std::string_view rel) {
  size_t slash = rel.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(rel.substr(0, slash));
}

// <prefix>/.info/version, which AMD's rocm-core package writes ("6.3.1-48"; TheRock's packages
// too, tests/extended_tests/utils/system/rocm_detector.py reads it), without the build number.
void ReadInfoVersion(const sys::Root& root, const std::string& prefix, Runtime& runtime) {
  std::string file = sys::JoinPath(prefix, ".info/version");
  auto content = root.ReadFile(file, 4096);
  if (!content) return;
  std::string_view line = text::Trim(*content);
  line = line.substr(0, line.find('\n'));
  if (line.empty()) return;
  runtime.evidence.push_back(fmt::format("{}: {}", Absolute(file), line));
  runtime.version = std::string(line.substr(0, line.find('-')));
}

// A version in the directory's own name: rocm-6.3.1, core-7.15 (TheRock's /opt/rocm/core-X.Y).
std::optional<std::string> VersionInName(std::string_view name) {
  for (std::string_view prefix : {"rocm-", "core-"}) {
    if (name.starts_with(prefix) && name.size() > prefix.size() &&
        std::isdigit(static_cast<unsigned char>(name[prefix.size()]))) {
      return std::string(name.substr(prefix.size()));
    }
  }
  return std::nullopt;
}

Runtime PrefixRuntime(const sys::Root& root, Kind kind, const std::string& prefix) {
  Runtime runtime;
  runtime.kind = kind;
  runtime.where = Absolute(prefix);
  ReadInfoVersion(root, prefix, runtime);
  if (!runtime.version) runtime.version = VersionInName(LastComponent(prefix));
  runtime.hip_version = HipVersionIn(root, sys::JoinPath(prefix, "lib"));
  AddPrefixCode(root, prefix, runtime.code);
  return runtime;
}

// "1:5.2.3-8" -> "5.2.3": the upstream part of a Debian version.
std::string UpstreamVersion(std::string_view version) {
  if (size_t colon = version.find(':'); colon != std::string_view::npos) version.remove_prefix(colon + 1);
  if (size_t dash = version.rfind('-'); dash != std::string_view::npos) version = version.substr(0, dash);
  return std::string(version);
}

}  // namespace

std::vector<Runtime> LibraryPathRuntimes(const sys::Root& root, const Env& env) {
  std::vector<Runtime> runtimes;
  auto list = env.find("LD_LIBRARY_PATH");
  if (list == env.end()) return runtimes;
  std::vector<std::string> dirs = SplitColons(list->second);
  if (dirs.size() > kMaxLibraryPathEntries) dirs.resize(kMaxLibraryPathEntries);
  for (const std::string& dir : dirs) {
    // ld.so takes an empty entry as the working directory, which is not known here.
    if (dir.empty() || !dir.starts_with('/')) continue;
    auto resolved = ResolveInRoot(root, RootRelative(dir));
    if (!resolved || !HasHipRuntime(root, resolved->rel)) continue;
    std::string lib = resolved->rel;
    std::string name = LastComponent(lib);
    std::string prefix = (name == "lib" || name == "lib64") ? WithoutLastComponent(lib) : lib;
    bool amd = root.TypeOf(sys::JoinPath(prefix, ".info/version")) == sys::EntryType::kFile;
    Runtime runtime = PrefixRuntime(root, amd ? Kind::kSystem : Kind::kPath, prefix);
    runtime.label =
        fmt::format("ROCm {}in {} (LD_LIBRARY_PATH)", runtime.version ? *runtime.version + " " : "", Absolute(lib));
    runtime.evidence.push_back(fmt::format("LD_LIBRARY_PATH has {}", dir));
    runtime.evidence.insert(runtime.evidence.end(), resolved->links.begin(), resolved->links.end());
    runtimes.push_back(std::move(runtime));
  }
  return runtimes;
}

std::optional<Runtime> SystemRocm(const sys::Root& root, const Env& env) {
  std::string path = "/opt/rocm";
  std::string source = "/opt/rocm";
  if (auto rocm_path = env.find("ROCM_PATH"); rocm_path != env.end() && !rocm_path->second.empty()) {
    path = rocm_path->second;
    source = "ROCM_PATH=" + path;
  }
  auto resolved = ResolveInRoot(root, RootRelative(path));
  if (!resolved) return std::nullopt;
  std::vector<std::string> links = resolved->links;
  std::string prefix = resolved->rel;
  // TheRock's packages install to /opt/rocm/core-X.Y, /opt/rocm/core an update-alternatives link
  // to it and /opt/rocm/{bin,lib,include,share} links into it (TheRock
  // build_tools/packaging/linux/template/scripts/amdrocm-core-postinst.j2).
  if (root.TypeOf(sys::JoinPath(prefix, ".info/version")) == sys::EntryType::kMissing) {
    if (auto core = ResolveInRoot(root, sys::JoinPath(prefix, "core")); core && root.IsDirectory(core->rel)) {
      prefix = core->rel;
      links.insert(links.end(), core->links.begin(), core->links.end());
    }
  }
  if (!root.IsDirectory(prefix)) return std::nullopt;
  Runtime runtime = PrefixRuntime(root, Kind::kSystem, prefix);
  std::string chain = links.empty() ? Absolute(prefix) : fmt::format("{}", fmt::join(links, ", "));
  runtime.label = fmt::format("system ROCm {}({})", runtime.version ? *runtime.version + " " : "", chain);
  runtime.evidence.push_back(source);
  runtime.evidence.insert(runtime.evidence.end(), links.begin(), links.end());
  return runtime;
}

std::optional<Runtime> DistroRuntime(const sys::Root& root) {
  // Debian and Ubuntu: the multiarch directory, rocBLAS's kernels in rocblas/<version>/library
  // (/usr/lib/x86_64-linux-gnu/rocblas/5.3.3/library); Fedora: /usr/lib64, rocBLAS's in
  // rocblas/library (Fedora rocblas.spec %files: %{_libdir}/rocblas/library), HIP's runtime in
  // package rocm-hip (rocclr.spec %files -n rocm-hip: %{_libdir}/libamdhip64.so.%{rocm_major}*).
  for (std::string_view lib : {"usr/lib/x86_64-linux-gnu", "usr/lib/aarch64-linux-gnu", "usr/lib64"}) {
    bool hip = HasHipRuntime(root, lib);
    bool rocblas = root.IsDirectory(sys::JoinPath(lib, "rocblas"));
    if (!hip && !rocblas) continue;
    Runtime runtime;
    runtime.kind = Kind::kDistro;
    runtime.where = "/usr";
    runtime.hip_version = HipVersionIn(root, lib);
    for (std::string_view library : {"rocblas", "hipblaslt"}) {
      std::string base = sys::JoinPath(lib, library);
      AddNamedCode(root, library, sys::JoinPath(base, "library"), runtime.code);
      auto versions = root.ListDir(base);
      if (!versions) continue;
      for (const std::string& version : *versions) {
        if (version == "library") continue;
        AddNamedCode(root, library, sys::JoinPath(sys::JoinPath(base, version), "library"), runtime.code);
      }
    }
    AddNamedCode(root, "miopen", "usr/share/miopen/db", runtime.code);
    if (auto status = root.ReadFile(sys::kDpkgStatus, sys::kMaxDpkgStatusBytes)) {
      for (std::string_view prefix : {"libamdhip64", "librocblas"}) {
        // The library's package, not its -dev or -doc package.
        auto package = sys::FirstInstalled(*status, [&](std::string_view name) {
          return name.starts_with(prefix) && !name.ends_with("-dev") && !name.ends_with("-doc");
        });
        if (!package) continue;
        runtime.evidence.push_back(fmt::format("/var/lib/dpkg/status: {} {}", package->name, package->version));
        if (!runtime.package) {
          runtime.package = fmt::format("{} {}", package->name, package->version);
          runtime.version = UpstreamVersion(package->version);
        }
      }
    }
    // Fedora: rpm's database, when the dpkg status file (Debian, Ubuntu) named no package.
    if (!runtime.package) AddRpmPackages(root, lib, runtime);
    runtime.label =
        fmt::format("the distribution's ROCm {}({})", runtime.version ? *runtime.version + " " : "", Absolute(lib));
    return runtime;
  }
  return std::nullopt;
}

}  // namespace rocmtune::runtime
