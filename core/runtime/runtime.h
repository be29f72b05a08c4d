// The ROCm runtimes a program may load, and the GPU code each carries. The runtime that decides
// whether a program runs is the one it loads, often not /opt/rocm: PyTorch's ROCm wheels bundle
// their own HIP runtime and libraries (torch/lib), AMD's TheRock builds install as
// /opt/rocm/core-X.Y or as Python wheels (rocm-sdk), distributions ship HIP and rocBLAS in the
// system library path. Each library carries code objects for a list of GPU targets; a GPU whose
// ISA is not among them gets "hipErrorNoBinaryForGpu" or rocBLAS's "Cannot read
// TensileLibrary.dat ... for GPU arch".
//
// Nothing here runs a program: files are listed and read beneath the root (directory names,
// torch/version.py, the offload bundle headers in an ELF's .hip_fatbin section), bounded.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::runtime {

enum class Kind {
  kSystem,   // AMD's packages or tarball: /opt/rocm (and its target), ROCM_PATH, /opt/rocm/core-X.Y
  kDistro,   // the distribution's HIP/rocBLAS in the system library path (Debian, Ubuntu, Fedora)
  kPath,     // a prefix found through LD_LIBRARY_PATH that is none of the above
  kTorch,    // PyTorch's ROCm wheel, with the runtime it bundles in torch/lib
  kTheRock,  // TheRock's Python wheels (rocm-sdk: _rocm_sdk_core, _rocm_sdk_libraries_*)
  kBundled,  // the ROCm a program ships beside itself (ollama: <exe>/../lib/ollama/rocm)
};
std::string_view KindName(Kind kind);  // "system", "distro", "path", "pytorch", "therock", "bundled"

// The GPU code one library of a runtime carries.
struct Code {
  // "rocblas", "hipblaslt", "miopen" (file names in their directories), "kpack" (TheRock's kernel
  // packs, .kpack/blas_lib_gfx1100.kpack), "torch" (PyTorch's own kernels: libtorch_hip.so's .hip_fatbin)
  std::string component;
  std::string path;  // where it was read, absolute as on the machine
  // The gfx targets its files name, sorted, unique, target features stripped ("gfx90a:xnack-" is
  // "gfx90a"); generic targets as LLVM spells them ("gfx10-3-generic").
  std::vector<std::string> targets;
  std::optional<std::string> unread;  // why the targets could not be read (targets then empty)
};

struct Runtime {
  Kind kind = Kind::kSystem;
  std::string where;  // its prefix, absolute: "/opt/rocm-6.3.1", "/home/u/venv/lib/python3.11/site-packages/torch"
  std::string label;  // for a person: "system ROCm 6.3.1 (/opt/rocm -> /opt/rocm-6.3.1)"
  std::optional<std::string> version;      // the ROCm release it is or was built from: "6.3.1", "6.2" (torch +rocm6.2)
  std::optional<std::string> hip_version;  // "6.2.41133-dd7f95766" (torch.version.hip, libamdhip64.so.6.2.41133)
  // "torch 2.5.1+rocm6.2", "librocblas0 5.3.3-4", "rocm-hip 6.3.1-1.fc42", "rocm 7.10.0 (rocm-sdk)"
  std::optional<std::string> package;
  std::vector<Code> code;
  std::vector<std::string> evidence;  // what was read that makes it, for a person ("/opt/rocm/.info/version: 6.3.1")
  std::optional<std::string> python;  // the Python environment it was found in (VIRTUAL_ENV, CONDA_PREFIX, ...)
};

using Env = std::map<std::string, std::string>;

// Every ROCm runtime a program started with `env` may load, the one it loads first:
//   0. the ROCm `program` (its absolute path, when known: a unit's ExecStart=) ships beside itself,
//      which it favours over all others (ollama's <exe>/../lib/ollama/rocm);
//   1. PyTorch (ROCm build) in the program's Python environment: VIRTUAL_ENV, CONDA_PREFIX, else the
//      python3 on PATH (its venv when it has pyvenv.cfg, else its prefix's site/dist-packages), and
//      the user site (HOME/.local/lib/python3.*/site-packages); its bundled runtime in torch/lib, or,
//      for a torch without one, the runtime below it loads (listed anyway, its code read);
//   2. TheRock's rocm wheels in that Python environment;
//   3. LD_LIBRARY_PATH's directories that hold libamdhip64 (in order);
//   4. ROCM_PATH, else /opt/rocm (its real target, /opt/rocm-X.Y.Z or /opt/rocm/core-X.Y);
//   5. the distribution's libraries in the system library path (with their package's version from
//      the dpkg status file, else from rpm's database, when there is one).
// A path that does not exist is skipped; one that cannot be read gives a runtime whose code says why.
std::vector<Runtime> FindRuntimes(const sys::Root& root, const Env& env, std::string_view program = {});

// Whether code built for `target` runs on a GPU whose ISA is `isa` ("gfx1031"): the same
// processor (features ignored), or a generic target that covers it (LLVM AMDGPUUsage,
// "Generic processors": gfx10-3-generic covers gfx1030..gfx1036, ...). A generic code object's
// version (which decides whether processors added to the table later, gfx1152/gfx1153, run it)
// is in its ELF header, not in the names read here: those count as covered.
bool Runs(std::string_view target, std::string_view isa);

// The targets listed in a directory's file names: rocBLAS/hipBLASLt library directories
// ("TensileLibrary_lazy_gfx1030.dat", "Kernels.so-000-gfx90a-xnack-.hsaco"), MIOpen's databases
// ("gfx1030_36.kdb", "gfx90a68.HIP.fdb.txt"), TheRock's kernel packs ("blas_lib_gfx1100.kpack").
// Exposed for tests.
std::vector<std::string> TargetsInNames(const std::vector<std::string>& names);

// The offload targets of the HIP fat binary in an ELF file's .hip_fatbin section
// ("hipv4-amdgcn-amd-amdhsa--gfx1030" -> "gfx1030"), compressed bundles (CCOB) included; bounded
// reads, so a 1 GiB libtorch_hip.so costs its headers. Fails with a reason for a file that is not
// ELF, has no such section, or a bundle it cannot read.
Result<std::vector<std::string>> FatBinaryTargets(const sys::Root& root, std::string_view rel);

}  // namespace rocmtune::runtime
