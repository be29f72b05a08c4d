// Steps 1 and 2 of FindRuntimes: the Python environment a program runs in, its site-packages
// directories in the order Python imports from them, and the ROCm that PyTorch and TheRock's
// wheels bring there.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "runtime/finders.h"
#include "runtime/resolve.h"
#include "util/text.h"

namespace rocmtune::runtime {
namespace {

constexpr size_t kMaxPathEntries = 256;  // a hostile PATH costs no more than this many lookups

struct PythonEnv {
  std::string label;                   // "venv /home/u/venv (VIRTUAL_ENV)"
  std::vector<std::string> site_dirs;  // root-relative, in import order
};

std::string ParentOf(std::string_view rel) {
  size_t slash = rel.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(rel.substr(0, slash));
}

std::string BaseOf(std::string_view rel) {
  size_t slash = rel.rfind('/');
  return std::string(slash == std::string_view::npos ? rel : rel.substr(slash + 1));
}

bool IsPythonVersionDir(std::string_view name) {
  if (!name.starts_with("python3.")) return false;
  std::string_view minor = name.substr(8);
  return !minor.empty() && minor.size() <= 3 &&
         std::all_of(minor.begin(), minor.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// <prefix>/<lib>/python3.N/<leaf> for each python3.N there (only `version` when it is known),
// newest first; existing directories only.
void AddVersionedSiteDirs(const sys::Root& root, std::string_view prefix, std::string_view lib, std::string_view leaf,
                          const std::optional<std::string>& version, std::vector<std::string>& out) {
  std::string lib_dir = sys::JoinPath(prefix, lib);
  auto names = root.ListDir(lib_dir);
  if (!names) return;
  std::vector<std::string> versions;
  for (const std::string& name : *names) {
    if (IsPythonVersionDir(name) && (!version || name == *version)) versions.push_back(name);
  }
  std::sort(versions.begin(), versions.end(), [](const std::string& a, const std::string& b) {
    return text::ParseU64(a.substr(8)).value_or(0) > text::ParseU64(b.substr(8)).value_or(0);
  });
  for (const std::string& name : versions) {
    std::string dir = sys::JoinPath(sys::JoinPath(lib_dir, name), leaf);
    if (root.IsDirectory(dir)) out.push_back(dir);
  }
}

// The user site (site.USER_SITE): ~/.local/lib/python3.N/site-packages, before the prefix's own
// directories; a virtual environment does not see it (PEP 405, include-system-site-packages).
void AddUserSite(const sys::Root& root, const Env& env, const std::optional<std::string>& version,
                 std::vector<std::string>& out) {
  auto home = env.find("HOME");
  if (home == env.end() || home->second.empty()) return;
  AddVersionedSiteDirs(root, sys::JoinPath(RootRelative(home->second), ".local"), "lib", "site-packages", version, out);
}

void AddPrefixSiteDirs(const sys::Root& root, std::string_view prefix, const std::optional<std::string>& version,
                       std::vector<std::string>& out) {
  if (prefix == "usr") {
    // Debian and Ubuntu (site.py patched: /usr/local/lib/python3.N/dist-packages, then
    // /usr/lib/python3/dist-packages), Fedora (/usr/local/lib64, /usr/local/lib, /usr/lib64,
    // /usr/lib, python3.N/site-packages each).
    AddVersionedSiteDirs(root, "usr/local", "lib", "dist-packages", version, out);
    AddVersionedSiteDirs(root, "usr/local", "lib64", "site-packages", version, out);
    AddVersionedSiteDirs(root, "usr/local", "lib", "site-packages", version, out);
    if (root.IsDirectory("usr/lib/python3/dist-packages")) out.push_back("usr/lib/python3/dist-packages");
    AddVersionedSiteDirs(root, "usr", "lib", "dist-packages", version, out);
    AddVersionedSiteDirs(root, "usr", "lib64", "site-packages", version, out);
  }
  AddVersionedSiteDirs(root, prefix, "lib", "site-packages", version, out);
}

// A virtual environment's import path (PEP 405; CPython Lib/site.py main(): venv(), then
// addusersitepackages, then addsitepackages). Its own site-packages only, unless pyvenv.cfg says
// `include-system-site-packages = true`: then the user site comes first, its own site-packages,
// then those of the base interpreter's prefix (the parent of pyvenv.cfg's `home`, the bin/ it was
// made from), for its `version`'s python3.N.
void AddVenvSiteDirs(const sys::Root& root, const Env& env, const std::string& prefix, std::vector<std::string>& out) {
  bool system_site = false;
  std::string home;
  std::optional<std::string> version;
  if (auto cfg = root.ReadFile(sys::JoinPath(prefix, "pyvenv.cfg"), 64 * 1024)) {
    for (std::string_view line : text::SplitLines(*cfg)) {
      size_t eq = line.find('=');
      if (eq == std::string_view::npos) continue;
      std::string key = text::ToLower(text::Trim(line.substr(0, eq)));
      std::string_view value = text::Trim(line.substr(eq + 1));
      if (key == "include-system-site-packages") system_site = text::ToLower(value) == "true";
      if (key == "home") home = std::string(value);
      if (key == "version" || key == "version_info") {
        size_t dot = value.find('.');
        size_t dot2 = dot == std::string_view::npos ? dot : value.find('.', dot + 1);
        if (dot != std::string_view::npos && !version)
          version = "python" + std::string(value.substr(0, dot2 == std::string_view::npos ? value.size() : dot2));
      }
    }
  }
  if (system_site) AddUserSite(root, env, version, out);
  AddVersionedSiteDirs(root, prefix, "lib", "site-packages", std::nullopt, out);
  if (system_site && home.starts_with('/')) {
    std::string base = ParentOf(RootRelative(home));
    if (!base.empty()) AddPrefixSiteDirs(root, base, version, out);
  }
}

std::optional<PythonEnv> FindPythonEnv(const sys::Root& root, const Env& env) {
  PythonEnv python;
  if (auto venv = env.find("VIRTUAL_ENV"); venv != env.end() && !venv->second.empty()) {
    python.label = fmt::format("venv {} (VIRTUAL_ENV)", venv->second);
    AddVenvSiteDirs(root, env, RootRelative(venv->second), python.site_dirs);
    return python;
  }
  if (auto conda = env.find("CONDA_PREFIX"); conda != env.end() && !conda->second.empty()) {
    python.label = fmt::format("conda environment {} (CONDA_PREFIX)", conda->second);
    AddUserSite(root, env, std::nullopt, python.site_dirs);
    AddVersionedSiteDirs(root, RootRelative(conda->second), "lib", "site-packages", std::nullopt, python.site_dirs);
    return python;
  }
  auto path = env.find("PATH");
  if (path == env.end()) return std::nullopt;
  std::vector<std::string> dirs = SplitColons(path->second);
  if (dirs.size() > kMaxPathEntries) dirs.resize(kMaxPathEntries);
  for (const std::string& dir : dirs) {
    if (dir.empty() || !dir.starts_with('/')) continue;
    std::string bin = RootRelative(dir);
    std::string python3 = sys::JoinPath(bin, "python3");
    if (root.TypeOf(python3) == sys::EntryType::kMissing) continue;
    std::string prefix = ParentOf(bin);
    // A virtual environment's bin/python3 links to its base interpreter; pyvenv.cfg beside bin/
    // makes it one (PEP 405), and its own site-packages are all it sees.
    if (root.TypeOf(sys::JoinPath(prefix, "pyvenv.cfg")) == sys::EntryType::kFile) {
      python.label = fmt::format("venv {} (python3 on PATH)", Absolute(prefix));
      AddVenvSiteDirs(root, env, prefix, python.site_dirs);
      return python;
    }
    // python3 -> python3.11: the version whose directories it reads.
    std::optional<std::string> version;
    if (auto resolved = ResolveInRoot(root, python3); resolved && IsPythonVersionDir(BaseOf(resolved->rel))) {
      version = BaseOf(resolved->rel);
    }
    python.label = fmt::format("{} (python3 on PATH)", Absolute(python3));
    AddUserSite(root, env, version, python.site_dirs);
    AddPrefixSiteDirs(root, prefix, version, python.site_dirs);
    return python;
  }
  return std::nullopt;
}

// torch/version.py as tools/generate_torch_version.py writes it: `__version__ = '2.5.1+rocm6.2'`,
// `hip: Optional[str] = '6.2.41133-dd7f95766'` (None for a build without ROCm).
struct TorchVersion {
  std::optional<std::string> version;
  std::optional<std::string> hip;
};

std::optional<std::string> QuotedValue(std::string_view line) {
  size_t equals = line.find('=');
  if (equals == std::string_view::npos) return std::nullopt;
  std::string_view value = text::Trim(line.substr(equals + 1));
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') && value.back() == value.front()) {
    return std::string(value.substr(1, value.size() - 2));
  }
  return std::nullopt;  // None, or an expression: not a version
}

TorchVersion ParseTorchVersion(std::string_view content) {
  TorchVersion parsed;
  for (std::string_view line : text::SplitLines(content)) {
    line = text::Trim(line);
    if (line.starts_with("__version__")) parsed.version = QuotedValue(line);
    if (line.starts_with("hip") && (line.size() > 3 && (line[3] == ' ' || line[3] == ':' || line[3] == '='))) {
      parsed.hip = QuotedValue(line);
    }
  }
  return parsed;
}

std::optional<Runtime> TorchRuntime(const sys::Root& root, const std::string& site, const PythonEnv& python) {
  std::string torch = sys::JoinPath(site, "torch");
  std::string version_py = sys::JoinPath(torch, "version.py");
  if (root.TypeOf(version_py) == sys::EntryType::kMissing) return std::nullopt;
  Runtime runtime;
  runtime.kind = Kind::kTorch;
  runtime.where = Absolute(torch);
  runtime.python = python.label;
  auto content = root.ReadFile(version_py, 64 * 1024);
  if (!content) {
    runtime.label = fmt::format("PyTorch ({})", runtime.where);
    Code unread;
    unread.component = "torch";
    unread.path = Absolute(version_py);
    unread.unread = content.error().message;
    runtime.code.push_back(std::move(unread));
    return runtime;
  }
  TorchVersion parsed = ParseTorchVersion(*content);
  if (!parsed.hip) return std::nullopt;  // a CUDA or CPU build: no ROCm here
  std::string version = parsed.version.value_or("unknown version");
  runtime.package = "torch " + version;
  runtime.hip_version = parsed.hip;
  runtime.evidence.push_back(fmt::format("{}: __version__ {}, hip {}", Absolute(version_py), version, *parsed.hip));
  // The wheel's local version names the ROCm it was built with: "2.5.1+rocm6.2".
  if (size_t rocm = version.find("+rocm"); rocm != std::string::npos) runtime.version = version.substr(rocm + 5);
  std::string lib = sys::JoinPath(torch, "lib");
  bool bundled = HasHipRuntime(root, lib);
  runtime.label = bundled ? fmt::format("PyTorch {} with its bundled ROCm runtime ({})", version, runtime.where)
                          : fmt::format("PyTorch {} without a bundled HIP runtime ({}): it loads the ROCm below",
                                        version, runtime.where);
  if (bundled) runtime.evidence.push_back(fmt::format("{}/libamdhip64.so: bundled", Absolute(lib)));
  // PyTorch's own kernels (aten, c10's HIP code), then what the wheel copied from ROCm into
  // torch/lib and torch/share (pytorch .ci/manywheel/build_rocm.sh).
  AddFatBinaryCode(root, "torch", sys::JoinPath(lib, "libtorch_hip.so"), runtime.code);
  AddPrefixCode(root, torch, runtime.code);
  return runtime;
}

// TheRock's wheels (build_tools/packaging/python/templates/rocm/src/rocm_sdk/_dist_info.py):
// the pure-Python `rocm_sdk` (distribution "rocm"), and platform packages named "_" + the
// distribution with "-" as "_" + a version nonce: _rocm_sdk_core (HIP runtime in lib/),
// _rocm_sdk_libraries (multi-arch) or _rocm_sdk_libraries_<family> such as
// _rocm_sdk_libraries_gfx110X_dgpu (per family) with lib/rocblas/library and friends; the
// per-target device wheels (rocm-sdk-device-gfx1031) overlay their files into the libraries
// package (templates/rocm-sdk-device/setup.py).
std::optional<Runtime> TheRockRuntime(const sys::Root& root, const std::string& site, const PythonEnv& python) {
  std::vector<std::string> cores = NamesStartingWith(root, site, "_rocm_sdk_core");
  if (cores.empty()) return std::nullopt;
  std::string core = sys::JoinPath(site, cores.front());
  Runtime runtime;
  runtime.kind = Kind::kTheRock;
  runtime.where = Absolute(core);
  runtime.python = python.label;
  runtime.hip_version = HipVersionIn(root, sys::JoinPath(core, "lib"));
  // Installed distributions' metadata: rocm-7.10.0.dist-info (the meta package), else the core's.
  for (std::string_view dist : {"rocm-", "rocm_sdk_core-"}) {
    for (const std::string& name : NamesStartingWith(root, site, dist)) {
      if (!name.ends_with(".dist-info")) continue;
      std::string version = name.substr(dist.size(), name.size() - dist.size() - 10);
      if (version.empty() || !std::isdigit(static_cast<unsigned char>(version.front()))) continue;
      runtime.version = version;
      runtime.evidence.push_back(fmt::format("{}/{}", Absolute(site), name));
      break;
    }
    if (runtime.version) break;
  }
  runtime.package = fmt::format("rocm {} (rocm-sdk)", runtime.version.value_or("unknown version"));
  runtime.label =
      fmt::format("TheRock ROCm {} Python wheels ({})", runtime.version.value_or("(version unknown)"), Absolute(site));
  for (const std::string& libraries : NamesStartingWith(root, site, "_rocm_sdk_libraries")) {
    std::string dir = sys::JoinPath(site, libraries);
    AddPrefixCode(root, dir, runtime.code);
    AddNamedCode(root, "kpack", sys::JoinPath(dir, "lib/.kpack"), runtime.code);
  }
  return runtime;
}

}  // namespace

std::vector<Runtime> PythonRuntimes(const sys::Root& root, const Env& env) {
  std::vector<Runtime> runtimes;
  auto python = FindPythonEnv(root, env);
  if (!python) return runtimes;
  // Python imports a package from the first directory that has it: later copies are shadowed.
  for (const std::string& site : python->site_dirs) {
    if (auto torch = TorchRuntime(root, site, *python)) {
      runtimes.push_back(std::move(*torch));
      break;
    }
  }
  for (const std::string& site : python->site_dirs) {
    if (auto therock = TheRockRuntime(root, site, *python)) {
      runtimes.push_back(std::move(*therock));
      break;
    }
  }
  return runtimes;
}

}  // namespace rocmtune::runtime
