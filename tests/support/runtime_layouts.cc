#include "runtime_layouts.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace rocmtune::testing {
namespace {

namespace fs = std::filesystem;

std::string Under(const std::string& root_dir, std::string_view rel) {
  while (rel.starts_with('/')) rel.remove_prefix(1);
  return root_dir + "/" + std::string(rel);
}

void Put(const std::string& root_dir, std::string_view rel, std::string_view content = "") {
  std::string path = Under(root_dir, rel);
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

void Link(const std::string& root_dir, std::string_view rel, std::string_view target) {
  std::string path = Under(root_dir, rel);
  fs::create_directories(fs::path(path).parent_path());
  fs::remove(path);
  if (::symlink(std::string(target).c_str(), path.c_str()) != 0) throw std::runtime_error("cannot link " + path);
}

void CopyFixture(const std::string& root_dir, std::string_view rel, std::string_view fixture) {
  std::string path = Under(root_dir, rel);
  fs::create_directories(fs::path(path).parent_path());
  fs::copy_file(FatbinFixture(fixture), path, fs::copy_options::overwrite_existing);
}

std::string Join(std::string_view a, std::string_view b) { return std::string(a) + "/" + std::string(b); }

// MIOpen's databases are named for the target and the CU count: gfx906_60.kdb, gfx1030_36.kdb,
// and for gfx90a without the underscore: gfx90a68.HIP.fdb.txt.
void WriteMiopenDb(const std::string& root_dir, std::string_view dir, const std::vector<std::string>& targets) {
  for (const std::string& t : targets) {
    if (t == "gfx90a") {
      Put(root_dir, Join(dir, "gfx90a68.HIP.fdb.txt"));
      Put(root_dir, Join(dir, "gfx90a68.kdb"));
    } else {
      std::string cu = t == "gfx906" ? "60" : "36";
      Put(root_dir, Join(dir, t + "_" + cu + ".kdb"));
      Put(root_dir, Join(dir, t + "_" + cu + ".HIP.fdb.txt"));
    }
  }
}

void WriteHipblasltLibrary(const std::string& root_dir, std::string_view dir, const std::vector<std::string>& targets) {
  Put(root_dir, Join(dir, "hipblasltExtOpLibrary.dat"));
  for (const std::string& t : targets) {
    Put(root_dir, Join(dir, "extop_" + t + ".co"));
    Put(root_dir, Join(dir, "Kernels.so-000-" + t + ".hsaco"));
    Put(root_dir,
        Join(dir, "TensileLibrary_HH_HH_HA_Bias_SAV_Type_HH_HPA_Contraction_l_Alik_Bljk_Cijk_Dijk_" + t + ".co"));
  }
}

void WriteHipLibrary(const std::string& root_dir, std::string_view lib, std::string_view full_version) {
  std::string major(full_version.substr(0, full_version.find('.')));
  std::string real = "libamdhip64.so." + std::string(full_version);
  Put(root_dir, Join(lib, real),
      "\x7f"
      "ELF placeholder");
  Link(root_dir, Join(lib, "libamdhip64.so." + major), real);
  Link(root_dir, Join(lib, "libamdhip64.so"), "libamdhip64.so." + major);
}

}  // namespace

std::string FatbinFixture(std::string_view name) {
  return std::string(ROCMTUNE_FIXTURES_DIR) + "/fatbin/" + std::string(name);
}

void WriteRocblasLibrary(const std::string& root_dir, std::string_view dir, const std::vector<std::string>& targets) {
  Put(root_dir, Join(dir, "TensileManifest.txt"));
  for (const std::string& t : targets) {
    Put(root_dir, Join(dir, "TensileLibrary_lazy_" + t + ".dat"));
    Put(root_dir, Join(dir, "Kernels.so-000-" + t + ".hsaco"));
    Put(root_dir, Join(dir, "TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_" + t + ".co"));
    Put(root_dir, Join(dir, "TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_fallback_" + t + ".hsaco"));
  }
}

void InstallSystemRocm(const std::string& root_dir, std::string_view version, const std::vector<std::string>& targets,
                       const SystemRocmOptions& options) {
  std::string real = options.real_dir.empty() ? "opt/rocm-" + std::string(version) : options.real_dir;
  Put(root_dir, Join(real, ".info/version"), std::string(version) + "-" + options.build + "\n");
  std::string hip_build = options.hip_build;
  if (hip_build.empty()) {
    int parts[3] = {0, 0, 0};
    std::sscanf(std::string(version).c_str(), "%d.%d.%d", &parts[0], &parts[1], &parts[2]);
    hip_build = std::to_string(parts[0] * 10000 + parts[1] * 100 + parts[2]);
  }
  std::string major_minor(version.substr(0, version.rfind('.')));
  WriteHipLibrary(root_dir, Join(real, "lib"), major_minor + "." + hip_build);
  Put(root_dir, Join(real, "lib/librocblas.so.4.3"), "placeholder");
  WriteRocblasLibrary(root_dir, Join(real, "lib/rocblas/library"), targets);
  if (options.hipblaslt) WriteHipblasltLibrary(root_dir, Join(real, "lib/hipblaslt/library"), targets);
  if (options.miopen) WriteMiopenDb(root_dir, Join(real, "share/miopen/db"), targets);
  // A world may have /opt/rocm as a directory (a captured .info/version): the link takes its place.
  if (fs::is_directory(fs::symlink_status(Under(root_dir, "opt/rocm")))) fs::remove_all(Under(root_dir, "opt/rocm"));
  Link(root_dir, "opt/rocm", options.link_target.empty() ? "/" + real : options.link_target);
}

void InstallOllama(const std::string& root_dir, std::string_view prefix, std::string_view hip_version,
                   const std::vector<std::string>& targets) {
  Put(root_dir, Join(prefix, "bin/ollama"), "placeholder");
  std::string rocm = Join(prefix, "lib/ollama/rocm");
  WriteHipLibrary(root_dir, rocm, std::string(hip_version));
  Put(root_dir, Join(rocm, "librocblas.so.4.3"), "placeholder");
  WriteRocblasLibrary(root_dir, Join(rocm, "rocblas/library"), targets);
}

std::string InstallTorchVenv(const std::string& root_dir, std::string_view venv, std::string_view torch_version,
                             const std::optional<std::string>& hip, const std::vector<std::string>& rocblas_targets,
                             const TorchOptions& options) {
  std::string site = Join(Join(Join(venv, "lib"), options.python), "site-packages");
  if (options.venv) {
    Put(root_dir, Join(venv, "pyvenv.cfg"),
        "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n");
    Link(root_dir, Join(venv, "bin/python3"), "/usr/bin/python3");
  }
  std::string torch = Join(site, "torch");
  // tools/generate_torch_version.py
  std::string version_py =
      "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n";
  version_py += "__version__ = '" + std::string(torch_version) + "'\n";
  version_py += "debug = False\ncuda: Optional[str] = None\ngit_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\n";
  version_py += "hip: Optional[str] = " + (hip ? "'" + *hip + "'" : std::string("None")) + "\n";
  Put(root_dir, Join(torch, "version.py"), version_py);
  Put(root_dir, Join(torch, "__init__.py"));
  if (!options.fatbin.empty()) CopyFixture(root_dir, Join(torch, "lib/libtorch_hip.so"), options.fatbin);
  if (options.bundled_runtime) {
    // .ci/manywheel/build_rocm.sh: the ROCm libraries by soname, rocBLAS's and hipBLASLt's
    // kernels for the wheel's arch list, MIOpen's databases.
    Put(root_dir, Join(torch, "lib/libamdhip64.so"),
        "\x7f"
        "ELF placeholder");
    Put(root_dir, Join(torch, "lib/librocblas.so"),
        "\x7f"
        "ELF placeholder");
    Put(root_dir, Join(torch, "lib/libMIOpen.so"),
        "\x7f"
        "ELF placeholder");
    WriteRocblasLibrary(root_dir, Join(torch, "lib/rocblas/library"), rocblas_targets);
    WriteHipblasltLibrary(root_dir, Join(torch, "lib/hipblaslt/library"), rocblas_targets);
    WriteMiopenDb(root_dir, Join(torch, "share/miopen/db"), rocblas_targets);
  }
  Put(root_dir,
      Join(site, "torch-" + std::string(torch_version.substr(0, torch_version.find('+'))) + ".dist-info/METADATA"),
      "Metadata-Version: 2.1\nName: torch\nVersion: " + std::string(torch_version) + "\n");
  return site;
}

void InstallTheRockWheels(const std::string& root_dir, std::string_view site, std::string_view version,
                          const std::vector<std::string>& targets, std::string_view family) {
  std::string v(version);
  Put(root_dir, Join(site, "rocm_sdk/__init__.py"));
  Put(root_dir, Join(site, "rocm_sdk/_dist_info.py"), "__version__ = \"" + v + "\"\n");
  Put(root_dir, Join(site, "rocm-" + v + ".dist-info/METADATA"),
      "Metadata-Version: 2.1\nName: rocm\nVersion: " + v + "\n");
  Put(root_dir, Join(site, "rocm_sdk_core-" + v + ".dist-info/METADATA"), "Name: rocm-sdk-core\nVersion: " + v + "\n");
  std::string core = Join(site, "_rocm_sdk_core");
  Put(root_dir, Join(core, "__init__.py"));
  WriteHipLibrary(root_dir, Join(core, "lib"), "7.1.25424");
  std::string libraries =
      family.empty() ? Join(site, "_rocm_sdk_libraries") : Join(site, "_rocm_sdk_libraries_" + std::string(family));
  Put(root_dir, Join(libraries, "__init__.py"));
  Put(root_dir, Join(libraries, "lib/librocblas.so.5"), "placeholder");
  Put(root_dir, Join(libraries, "lib/rocblas/library/TensileManifest.txt"));
  WriteRocblasLibrary(root_dir, Join(libraries, "lib/rocblas/library"), targets);
  WriteHipblasltLibrary(root_dir, Join(libraries, "lib/hipblaslt/library"), targets);
  WriteMiopenDb(root_dir, Join(libraries, "share/miopen/db"), targets);
  for (const std::string& t : targets) {
    if (family.empty()) {
      Put(root_dir, Join(site, "rocm_sdk_device_" + t + "-" + v + ".dist-info/METADATA"),
          "Name: rocm-sdk-device-" + t + "\n");
      Put(root_dir, Join(libraries, ".kpack/blas_lib_" + t + ".kpack"));
    }
  }
  if (family.empty())
    Put(root_dir, Join(site, "rocm_sdk_libraries-" + v + ".dist-info/METADATA"), "Name: rocm-sdk-libraries\n");
}

void InstallTheRockCore(const std::string& root_dir, std::string_view version,
                        const std::vector<std::string>& targets) {
  std::string core = "opt/rocm/core-" + std::string(version);
  Put(root_dir, Join(core, ".info/version"), std::string(version) + ".0\n");
  WriteHipLibrary(root_dir, Join(core, "lib"), std::string(version) + ".26014");
  WriteRocblasLibrary(root_dir, Join(core, "lib/rocblas/library"), targets);
  for (const std::string& t : targets) {
    Put(root_dir, Join(core, ".kpack/blas_lib_" + t + ".kpack"));
    Put(root_dir, Join(core, ".kpack/fft_lib_" + t + ".kpack"));
  }
  // amdrocm-core-postinst.j2: update-alternatives --install /opt/rocm/core core <prefix>, and
  // /opt/rocm/lib -> <prefix>/lib the same way.
  Link(root_dir, "etc/alternatives/core", "/" + core);
  Link(root_dir, "opt/rocm/core", "/etc/alternatives/core");
  Link(root_dir, "etc/alternatives/rocm-lib", "/" + core + "/lib");
  Link(root_dir, "opt/rocm/lib", "/etc/alternatives/rocm-lib");
}

void InstallDistroRocblas(const std::string& root_dir, std::string_view rocblas_version,
                          std::string_view hip_package_version, const std::vector<std::string>& targets, bool fedora) {
  std::string lib = fedora ? "usr/lib64" : "usr/lib/x86_64-linux-gnu";
  std::string hip(hip_package_version.substr(0, hip_package_version.find('-')));
  std::string major_minor = hip.substr(0, hip.rfind('.'));
  WriteHipLibrary(root_dir, lib, major_minor + ".21153");
  std::string rocblas_dir =
      fedora ? Join(lib, "rocblas/library") : Join(lib, "rocblas/" + std::string(rocblas_version) + "/library");
  WriteRocblasLibrary(root_dir, rocblas_dir, targets);
  if (fedora) {
    // Fedora's rocblas 6.x: librocblas.so.4 (rocblas.spec %files: %{_libdir}/librocblas.so.4{,.*}).
    Put(root_dir, Join(lib, "librocblas.so.4.3"), "placeholder");
    Link(root_dir, Join(lib, "librocblas.so.4"), "librocblas.so.4.3");
    return;
  }
  Put(root_dir, Join(lib, "librocblas.so.0.1"), "placeholder");
  std::string status;
  status += "Package: libc6\nStatus: install ok installed\nArchitecture: amd64\nVersion: 2.36-9+deb12u4\n\n";
  status += "Package: libamdhip64-dev\nStatus: install ok installed\nArchitecture: amd64\nVersion: " +
            std::string(hip_package_version) + "\n\n";
  status +=
      "Package: libamdhip64-5\nStatus: install ok installed\nPriority: optional\nSection: libs\n"
      "Architecture: amd64\nSource: rocm-hipamd\nVersion: " +
      std::string(hip_package_version) +
      "\n"
      "Description: Heterogeneous Interface for Portability - AMD GPUs\n\n";
  status += "Package: librocblas0\nStatus: install ok installed\nArchitecture: amd64\nSource: rocblas\nVersion: " +
            std::string(rocblas_version) + "-1\n";
  Put(root_dir, "var/lib/dpkg/status", status);
}

}  // namespace rocmtune::testing
