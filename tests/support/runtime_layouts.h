// ROCm runtimes written into a test root (a WorldCopy's root or a TestTree's path), laid out as
// the real ones are (file names as AMD's packages, PyTorch's and TheRock's wheels and the
// distributions ship them; sources in core/runtime/*.cc). File contents are placeholders, but
// every fat binary is a real one from tests/fixtures/fatbin (made by hipcc, make.sh there).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli_runner.h"

namespace rocmtune::testing {

// tests/fixtures/fatbin/<name>.
std::string FatbinFixture(std::string_view name);

// rocBLAS's kernel directory for `targets` as rocBLAS 4.x installs it: per target
// TensileLibrary_lazy_<t>.dat, Kernels.so-000-<t>.hsaco, a TensileLibrary_Type_..._<t>.co and a
// fallback .hsaco, plus the target-less TensileManifest.txt.
void WriteRocblasLibrary(const std::string& root_dir, std::string_view dir, const std::vector<std::string>& targets);

struct SystemRocmOptions {
  bool miopen = true;        // share/miopen/db/<t>_<cu>.kdb
  bool hipblaslt = true;     // lib/hipblaslt/library
  std::string real_dir;      // default "opt/rocm-<version>"
  std::string link_target;   // what /opt/rocm points at; default "/<real_dir>" (absolute, as AMD's packages make it)
  std::string build = "48";  // .info/version's "-<build>"
  std::string hip_build;     // libamdhip64.so.<major>.<minor>.<hip_build>; default major*10000+minor*100+patch
};
// AMD's packages: /opt/rocm-<version> with .info/version, lib/libamdhip64.so*, lib/rocblas/library,
// lib/hipblaslt/library, share/miopen/db; /opt/rocm a symlink to it.
void InstallSystemRocm(const std::string& root_dir, std::string_view version, const std::vector<std::string>& targets,
                       const SystemRocmOptions& options = {});

struct TorchOptions {
  std::string python = "python3.11";
  bool bundled_runtime = true;             // torch/lib/libamdhip64.so and the ROCm libraries (PyTorch's own wheels)
  std::string fatbin = "libtorch_hip.so";  // the fixture copied to torch/lib/libtorch_hip.so; "" for none
  bool venv = true;                        // pyvenv.cfg and bin/python3 (python -m venv)
};
// A virtual environment at `venv` (root-relative) with PyTorch: lib/<python>/site-packages/torch
// with version.py (`__version__`, `hip` as tools/generate_torch_version.py writes them; `hip`
// nullopt for a CUDA/CPU build), torch/lib/{libamdhip64.so,librocblas.so,rocblas/library},
// torch/share/miopen/db. Returns the site-packages directory (root-relative).
std::string InstallTorchVenv(const std::string& root_dir, std::string_view venv, std::string_view torch_version,
                             const std::optional<std::string>& hip, const std::vector<std::string>& rocblas_targets,
                             const TorchOptions& options = {});

// TheRock's Python wheels in `site_packages` (root-relative): rocm (rocm_sdk/ and
// rocm-<version>.dist-info), rocm-sdk-core (_rocm_sdk_core/lib/libamdhip64.so.*), and
// rocm-sdk-libraries: `family` "" for the multi-arch _rocm_sdk_libraries with one
// rocm-sdk-device-<t> wheel per target overlaid into it, else the legacy per-family
// _rocm_sdk_libraries_<family> (e.g. "gfx110X_dgpu").
void InstallTheRockWheels(const std::string& root_dir, std::string_view site_packages, std::string_view version,
                          const std::vector<std::string>& targets, std::string_view family = "");

// TheRock's native packages: /opt/rocm/core-<major.minor> (.info/version, lib, .kpack kernel
// packs per target), /etc/alternatives/core -> it, /opt/rocm/core -> /etc/alternatives/core.
void InstallTheRockCore(const std::string& root_dir, std::string_view version, const std::vector<std::string>& targets);

// The distribution's HIP and rocBLAS: Debian/Ubuntu's /usr/lib/x86_64-linux-gnu/libamdhip64.so.*
// and rocblas/<rocblas_version>/library with their packages in /var/lib/dpkg/status
// (libamdhip64-5 <hip_package_version>, librocblas0 <rocblas_version>-1); `fedora`: /usr/lib64 and
// /usr/lib64/rocblas/library, no dpkg.
void InstallDistroRocblas(const std::string& root_dir, std::string_view rocblas_version,
                          std::string_view hip_package_version, const std::vector<std::string>& targets,
                          bool fedora = false);

// ollama's Linux install (install.sh unpacks the tarball into /usr/local): <prefix>/bin/ollama and
// its bundled ROCm <prefix>/lib/ollama/rocm with libamdhip64.so.<hip_version> and rocBLAS's
// rocblas/library for `targets` (ollama discover/amd_common.go reads TensileLibrary_lazy_gfx*.dat
// there).
void InstallOllama(const std::string& root_dir, std::string_view prefix, std::string_view hip_version,
                   const std::vector<std::string>& targets);

inline void InstallSystemRocm(const WorldCopy& w, std::string_view version, const std::vector<std::string>& targets,
                              const SystemRocmOptions& options = {}) {
  InstallSystemRocm(w.root(), version, targets, options);
}

}  // namespace rocmtune::testing
