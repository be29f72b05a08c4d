// What AMD's SMI library says about the live GPUs that sysfs alone does not give cleanly:
// firmware versions, RAS/ECC error counts, the PCIe DPM levels and replay count, the SMU's
// throttle status. Two libraries answer: amd-smi (libamd_smi, the successor, sys/amd_smi.cc) and
// rocm-smi-lib (librocm_smi64, sys/rocm_smi.cc). They are loaded at run time (dlopen), so the
// programs do not depend on them, and asked in a child process: rocm-smi-lib 5.2 asserts on sysfs
// it does not expect and prints to stdout, and 7.2 aborts on the WINDOW_3D power profile
// (ROCm/rocm_smi_lib issue 232); none of that may reach rocmtune. Only for the live root "/": the
// library reads /sys itself. Every value is either known or carries why it is not.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace rocmtune::sys {

// A value from rocm-smi-lib, or why there is none ("rocm-smi-lib: RSMI_STATUS_NOT_SUPPORTED...").
template <typename T>
struct SmiFact {
  std::optional<T> value;
  std::string unknown;  // empty when value is set
};

struct SmiEccCount {
  uint64_t correctable = 0;
  uint64_t uncorrectable = 0;
};

// One PCIe DPM level (pp_dpm_pcie): transfer rate in T/s and lanes.
struct SmiPcieLevel {
  uint64_t transfer_rate = 0;
  uint32_t lanes = 0;
};

struct SmiPcie {
  std::vector<SmiPcieLevel> levels;  // lowest first, as the driver lists them
  uint32_t current = 0;              // index of the level in use
};

struct SmiNamedFirmware {
  std::string block;  // "mec", "smc", ... (the amdgpu fw_version/<block>_fw_version name)
  SmiFact<uint64_t> version;
};

struct SmiNamedEcc {
  std::string block;  // "umc", "sdma", "gfx"
  SmiFact<SmiEccCount> count;
};

struct SmiDevice {
  uint64_t bdfid = 0;  // rocm_smi.h: domain 63:32, bus 15:8, device 7:3, function 2:0
  std::vector<SmiNamedFirmware> firmware;
  SmiFact<uint64_t> ecc_enabled;  // rsmi_gpu_block_t bits
  std::vector<SmiNamedEcc> ecc;
  SmiFact<SmiPcie> pcie;
  SmiFact<uint64_t> replay_count;
  SmiFact<uint32_t> throttle_status;
};

// Which library answered.
enum class SmiKind { kRocmSmi, kAmdSmi };
const char* SmiKindName(SmiKind kind);  // "rocm-smi-lib", "amd-smi"

struct SmiLibrary {
  SmiKind kind = SmiKind::kRocmSmi;
  std::string name;  // a SONAME or a path, as dlopen takes it
};

// Every SONAME in use, amd-smi's first (the successor), then rocm-smi-lib's; the first that loads
// answers (sys/smi_libraries.cc says where each name comes from).
const std::vector<SmiLibrary>& DefaultSmiLibraries();

struct SmiProbe {
  std::string error;    // non-empty: nothing could be asked (library missing, init failed, ...)
  std::string source;   // SmiKindName of the library asked; empty when none loaded
  std::string library;  // the name it was loaded by ("librocm_smi64.so.1")
  std::string version;  // the library's, "1.0.0"
  std::vector<SmiDevice> devices;
};

// The firmware blocks and ECC blocks asked, in report order.
const std::vector<std::string>& SmiFirmwareBlocks();
const std::vector<std::string>& SmiEccBlocks();
// The names of the rsmi_gpu_block_t bits set in `mask` ("umc", "gfx", ...; "bit N" for others).
std::vector<std::string> SmiBlockNames(uint64_t mask);

struct SmiOptions {
  std::vector<SmiLibrary> libraries = DefaultSmiLibraries();
  std::chrono::milliseconds timeout{10000};
  // /dev/shm is already the caller's own (SandboxOptions::shm_is_private): rocmtuned's unit.
  bool shm_is_private = false;
  // Run the child as this program started again (execv of /proc/self/exe with kSmiProbeChildArg)
  // instead of in the forked copy. A threaded caller (rocmtuned) may fork while another thread
  // holds a lock the copy would wait on forever: the allocator's under a sanitizer, the dynamic
  // loader's. Only async-signal-safe calls run between fork and exec. The program's main must
  // call RunSmiProbeChild before anything else.
  bool reexec = false;
};

// argv[1] of the program started again for the probe (SmiOptions::reexec); argv[2] is its
// options as JSON, and descriptor 3 the pipe it answers on.
inline constexpr const char* kSmiProbeChildArg = "--rocmtune-smi-probe-child";

// In main, first: when argv[1] is kSmiProbeChildArg, answers as ProbeRocmSmi's child does and
// returns the exit status; otherwise nullopt.
std::optional<int> RunSmiProbeChild(int argc, char** argv);

// Asks the first of `libraries` that loads, in a child process; never throws, never crashes the caller: a child that
// dies, hangs past the timeout or answers garbage gives a probe with `error` set. The child runs
// sandboxed (sys/sandbox.h); one that cannot have a private /dev/shm answers that as the `error`
// and never loads the library.
SmiProbe ProbeRocmSmi(const SmiOptions& options = {});

// The child's side, in this process (what the child runs): load, init, read every device.
// ReadSmi tries each library in order: one that does not load, or lacks the functions, passes to
// the next; the first that loads and has them answers, whatever its answer.
// `loaded` is told the kind of the library that answers once it is loaded, before it is asked.
using SmiLoaded = std::function<void(SmiKind)>;
SmiProbe ReadSmi(const std::vector<SmiLibrary>& libraries, const SmiLoaded& loaded = {});
SmiProbe ReadRocmSmi(const std::string& library, const SmiLoaded& loaded = {});
SmiProbe ReadAmdSmi(const std::string& library, const SmiLoaded& loaded = {});

// rsmi_init's flags for a library of this version: RSMI_INIT_FLAG_THRAD_ONLY_MUTEX from
// rocm-smi-lib 7.2 (ROCm 6.1.2) on, so that no /dev/shm/rocm_smi_* file is made.
uint64_t RsmiInitFlags(uint32_t major, uint32_t minor);

// The codec between the child and the parent (and for tests).
nlohmann::ordered_json SmiProbeToJson(const SmiProbe& probe);
SmiProbe SmiProbeFromJson(const nlohmann::ordered_json& doc);  // throws nlohmann::json::exception

}  // namespace rocmtune::sys
