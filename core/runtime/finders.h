// The pieces of FindRuntimes (runtime/find.cc), one file each along the discovery order.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/runtime.h"
#include "sys/root.h"

namespace rocmtune::runtime {

// library_code.cc: what a prefix's libraries carry.
// The targets named in directory `dir` (root-relative) as `component`; nothing when it is missing.
void AddNamedCode(const sys::Root& root, std::string_view component, std::string_view dir, std::vector<Code>& code);
// The targets of the fat binary `file` (root-relative) as `component`; nothing when it is missing.
void AddFatBinaryCode(const sys::Root& root, std::string_view component, std::string_view file,
                      std::vector<Code>& code);
// The library layout AMD's builds share beneath a prefix (/opt/rocm-X, torch/, a TheRock wheel):
// lib/rocblas/library, lib/hipblaslt/library, share/miopen/db, TheRock's .kpack kernel packs.
void AddPrefixCode(const sys::Root& root, std::string_view prefix, std::vector<Code>& code);
// HIP's version from the runtime library's file name in `lib_dir`: libamdhip64.so.6.3.60301 -> "6.3.60301".
std::optional<std::string> HipVersionIn(const sys::Root& root, std::string_view lib_dir);
// Whether `lib_dir` holds HIP's runtime library (libamdhip64.so*).
bool HasHipRuntime(const sys::Root& root, std::string_view lib_dir);
// The entries of a colon-separated list (PATH, LD_LIBRARY_PATH), empty ones kept.
std::vector<std::string> SplitColons(std::string_view list);
// "/opt/rocm/" -> "opt/rocm": an absolute path as Root takes it.
std::string RootRelative(std::string_view absolute);
// Names in `dir` that start with `prefix`, sorted; empty when it cannot be listed.
std::vector<std::string> NamesStartingWith(const sys::Root& root, std::string_view dir, std::string_view prefix);

// bundled.cc: step 0, the ROCm `program` (absolute) ships beside itself (ollama's lib/ollama/rocm).
std::optional<Runtime> BundledRuntime(const sys::Root& root, std::string_view program);

// python_env.cc: steps 1 and 2, PyTorch and TheRock's wheels in the program's Python environment.
std::vector<Runtime> PythonRuntimes(const sys::Root& root, const Env& env);

// system_rocm.cc: steps 3 to 5.
std::vector<Runtime> LibraryPathRuntimes(const sys::Root& root, const Env& env);
std::optional<Runtime> SystemRocm(const sys::Root& root, const Env& env);
std::optional<Runtime> DistroRuntime(const sys::Root& root);

// rpmdb.cc: the packages of rpm's database owning HIP's and rocBLAS's libraries in `lib`
// (root-relative): an evidence line each ("/usr/lib/sysimage/rpm/rpmdb.sqlite: rocm-hip
// 6.3.1-1.fc42", or why none), the first as the runtime's package and version.
void AddRpmPackages(const sys::Root& root, std::string_view lib, Runtime& runtime);

}  // namespace rocmtune::runtime
