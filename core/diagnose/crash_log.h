// Reading a crash log (`doctor --log`): which GPUs of this machine it names, whether it shows a
// crash, and whether it says a GPU's code is missing. Doctor matches the known issues only for the
// GPUs a log names (a fault on node-2 is not blamed on the GPU of node-1); a log that names none
// is matched against every GPU here, as before.
//
// Nothing of the log's bytes is kept but what the forms below parse (numbers, hex, PCI addresses,
// gfx names), each bounded, so a report built from a reading stays small whatever the log holds.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "detect/inventory.h"

namespace rocmtune::diagnose {

// How a log names a GPU.
enum class GpuRefKind {
  kKfdNode,      // ROCr's "... by GPU node-2 ...": the KFD topology node id
  kAgentHandle,  // "Agent handle: 0x..." on a line without a node, known from a line with both
  kPciAddress,   // the kernel's "amdgpu 0000:03:00.0: ..." lines
  kGfxTarget,    // "gfx1100", "amdgcn-amd-amdhsa--gfx1201"
};
std::string_view GpuRefKindName(GpuRefKind kind);  // "kfd-node", "agent-handle", "pci-address", "gfx-target"

// One distinct name of a GPU in the log and the GPUs here it names.
struct LogGpuRef {
  GpuRefKind kind = GpuRefKind::kKfdNode;
  std::string text;               // normalized: "node-2", "0x55a4c0b0e0f0 (node-2)", "0000:03:00.0", "gfx1100"
  std::vector<std::string> gpus;  // ids of the GPUs here it names
  // Whether this machine can tell a name of a GPU that is not here: a KFD node when KFD lists
  // the GPUs' nodes, an amdgpu PCI address always. A gfx name never: a code object bundle lists
  // the targets it was built for, which are not GPUs of the machine.
  bool judged = false;
};

// A kind of line that shows a crash, as rocmtune names it, and the code that prints it.
struct CrashSign {
  std::string_view needle;  // the text that shows it
  std::string_view what;    // for a person
  std::string_view source;
  std::vector<std::string_view> on_line_with;  // when given, one of these must be on the same line
};

struct CrashLogReading {
  std::vector<LogGpuRef> refs;            // distinct, in order of first appearance, at most kMaxRefs
  std::vector<std::string> gpus;          // the GPUs here the log names, in the inventory's order
  std::vector<std::string> missing_code;  // the missing-code errors it shows (MissingCodeError::name)
  std::vector<const CrashSign*> crash;    // the crash signs it shows, in CrashSigns()' order
  bool names_other_gpu = false;           // a KFD node or amdgpu PCI address of no GPU here

  // The log names a GPU this machine can tell is not here, and none that is.
  bool NamesOnlyOtherGpus() const;
};

inline constexpr size_t kMaxRefs = 16;

// The errors HIP programs end with when no code object for the GPU's gfx target was loaded:
// the runtime's hipErrorNoBinaryForGpu (its message "Unable to find code object for all current
// devices"), hipErrorInvalidDeviceFunction ("invalid device function") and the CUDA-named
// message PyTorch prints for it ("no kernel image is available for execution on the device").
// hipErrorNoBinaryForGpu is the enumerator (hip_runtime_api.h); ROCm's PyTorch troubleshooting
// page spells the printed line "hipErrorNoBinaryForGPU", so the needle stops before the case.
// rocBLAS, finding no Tensile library for the GPU's target, aborts with "rocBLAS error: Cannot
// read .../TensileLibrary.dat: No such file or directory for GPU arch : gfx906" (newer builds:
// "Illegal seek"), listing the TensileLibrary_lazy_gfx*.dat files it has (ROCm/ROCm#4625).
struct MissingCodeError {
  std::string_view needle;
  std::string_view name;
};
inline constexpr MissingCodeError kMissingCode[] = {
    {"hipErrorNoBinaryFor", "hipErrorNoBinaryForGpu"},
    {"Unable to find code object", "Unable to find code object"},
    {"invalid device function", "invalid device function"},
    {"no kernel image is available", "no kernel image is available"},
    {"for GPU arch : ", "rocBLAS's \"Cannot read TensileLibrary.dat ... for GPU arch\""},
};

const std::vector<CrashSign>& CrashSigns();

CrashLogReading ReadCrashLog(std::string_view log, const std::vector<detect::Gpu>& gpus);

}  // namespace rocmtune::diagnose
