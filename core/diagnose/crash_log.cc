#include "diagnose/crash_log.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>

#include "detect/pci_address.h"
#include "util/text.h"

namespace rocmtune::diagnose {

namespace {

constexpr std::string_view kNode = "GPU node-";  // ROCr: "Memory access fault by GPU node-%u (Agent handle: %p)"
constexpr std::string_view kHandle = "Agent handle: ";
constexpr size_t kMaxNodeDigits = 6;
constexpr size_t kMaxHandleDigits = 16;  // a 64-bit pointer
constexpr size_t kMaxGfxDigits = 6;
constexpr size_t kMaxHandles = 64;  // distinct handles on lines without a node, resolved at the end
// Names taken from one line: a real line names one or two; a 16 MiB line of them is not a log.
constexpr size_t kMaxPerLine = 16;

bool IsHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The digits (or hex digits) at `pos`, at most `max`; empty when there are none or more.
std::string_view Run(std::string_view line, size_t pos, size_t max, bool hex) {
  size_t end = pos;
  while (end < line.size() && (hex ? IsHex(line[end]) : IsDigit(line[end]))) ++end;
  if (end == pos || end - pos > max) return {};
  return line.substr(pos, end - pos);
}

// Every "GPU node-N" on the line, as N.
std::vector<int> Nodes(std::string_view line) {
  std::vector<int> out;
  for (size_t at = line.find(kNode); at != std::string_view::npos && out.size() < kMaxPerLine;
       at = line.find(kNode, at + 1)) {
    std::string_view digits = Run(line, at + kNode.size(), kMaxNodeDigits, false);
    if (auto n = text::ParseU64(digits)) out.push_back(static_cast<int>(*n));
  }
  return out;
}

// Every "Agent handle: 0x..." on the line, as the lower-case "0x..." text.
std::vector<std::string> Handles(std::string_view line) {
  std::vector<std::string> out;
  for (size_t at = line.find(kHandle); at != std::string_view::npos && out.size() < kMaxPerLine;
       at = line.find(kHandle, at + 1)) {
    size_t pos = at + kHandle.size();
    if (line.substr(pos, 2) != "0x") continue;
    std::string_view digits = Run(line, pos + 2, kMaxHandleDigits, true);
    if (!digits.empty()) out.push_back("0x" + text::ToLower(digits));
  }
  return out;
}

// Every full PCI address ("0000:03:00.0") on a line the amdgpu driver printed (dev_printk puts the
// driver's name and the device before the message: "amdgpu 0000:0b:00.0: amdgpu: [gfxhub] page
// fault"). Other lines of a kernel log name bridges and disks the same way.
std::vector<std::string> PciAddresses(std::string_view line) {
  std::vector<std::string> out;
  if (line.find("amdgpu") == std::string_view::npos) return out;
  constexpr size_t kLen = 12;  // dddd:bb:dd.f
  for (size_t at = line.find(':'); at != std::string_view::npos && out.size() < kMaxPerLine;
       at = line.find(':', at + 1)) {
    if (at < 4 || at - 4 + kLen > line.size()) continue;
    size_t start = at - 4;
    if (start > 0 && IsAlnum(line[start - 1])) continue;
    if (start + kLen < line.size() && IsAlnum(line[start + kLen])) continue;
    if (auto a = detect::ParsePciAddress(line.substr(start, kLen))) out.push_back(a->ToString());
  }
  return out;
}

// Every gfx target name: "gfx" and 3 to 6 hex digits, not part of a longer word and not a
// generic target ("gfx11-generic") or a family pattern ("gfx110X").
std::vector<std::string> GfxNames(std::string_view line) {
  std::vector<std::string> out;
  for (size_t at = line.find("gfx"); at != std::string_view::npos && out.size() < kMaxPerLine;
       at = line.find("gfx", at + 1)) {
    if (at > 0 && IsAlnum(line[at - 1])) continue;
    std::string_view digits = Run(line, at + 3, kMaxGfxDigits, true);
    if (digits.size() < 3) continue;
    size_t end = at + 3 + digits.size();
    if (end < line.size() && (IsAlnum(line[end]) || line[end] == '-' || line[end] == '_')) continue;
    out.push_back("gfx" + text::ToLower(digits));
  }
  return out;
}

class Reader {
 public:
  explicit Reader(const std::vector<detect::Gpu>& gpus) : gpus_(gpus) {
    for (const detect::Gpu& g : gpus) kfd_known_ |= g.kfd_node.has_value();
  }

  void Line(std::string_view line) {
    std::vector<int> nodes = Nodes(line);
    for (int n : nodes) Add(GpuRefKind::kKfdNode, fmt::format("node-{}", n), ForNode(n), kfd_known_);
    std::vector<std::string> handles = Handles(line);
    for (const std::string& h : handles) {
      if (nodes.size() == 1 && handle_node_.size() < kMaxHandles)
        handle_node_.emplace(h, nodes.front());  // ROCr prints one node per line
      else if (nodes.empty() && pending_.size() < kMaxHandles) pending_.insert(h);
    }
    for (const std::string& a : PciAddresses(line)) Add(GpuRefKind::kPciAddress, a, ForPci(a), true);
    for (const std::string& g : GfxNames(line)) Add(GpuRefKind::kGfxTarget, g, ForGfx(g), false);
  }

  CrashLogReading Finish() && {
    // A handle seen without a node names the GPU of the node it was printed with elsewhere.
    for (const std::string& h : pending_) {
      auto it = handle_node_.find(h);
      if (it != handle_node_.end())
        Add(GpuRefKind::kAgentHandle, fmt::format("{} (node-{})", h, it->second), ForNode(it->second), kfd_known_);
    }
    for (const detect::Gpu& g : gpus_)
      if (named_.count(g.id) > 0) reading_.gpus.push_back(g.id);
    return std::move(reading_);
  }

 private:
  void Add(GpuRefKind kind, std::string text, std::vector<std::string> ids, bool judged) {
    named_.insert(ids.begin(), ids.end());  // ids of the GPUs here: bounded by them
    if (judged && ids.empty()) reading_.names_other_gpu = true;
    // seen_ holds only what refs holds: a log of a million distinct names keeps kMaxRefs.
    if (reading_.refs.size() >= kMaxRefs || !seen_.insert({kind, text}).second) return;
    reading_.refs.push_back({kind, std::move(text), std::move(ids), judged});
  }

  template <typename Pred>
  std::vector<std::string> Where(Pred pred) const {
    std::vector<std::string> ids;
    for (const detect::Gpu& g : gpus_)
      if (!g.id.empty() && pred(g)) ids.push_back(g.id);
    return ids;
  }
  std::vector<std::string> ForNode(int n) const {
    return Where([n](const detect::Gpu& g) { return g.kfd_node == n; });
  }
  // A partitioned GPU's kernel lines name the physical device, which holds every partition.
  std::vector<std::string> ForPci(const std::string& a) const {
    return Where([&a](const detect::Gpu& g) { return g.physical_id == a || g.id == a; });
  }
  std::vector<std::string> ForGfx(const std::string& name) const {
    return Where([&name](const detect::Gpu& g) { return g.gfx_target == name; });
  }

  const std::vector<detect::Gpu>& gpus_;
  bool kfd_known_ = false;
  CrashLogReading reading_;
  std::set<std::pair<GpuRefKind, std::string>> seen_;
  std::set<std::string> named_;
  std::map<std::string, int> handle_node_;
  std::set<std::string> pending_;
};

bool SignOnLine(std::string_view line, const CrashSign& sign) {
  if (line.find(sign.needle) == std::string_view::npos) return false;
  if (sign.on_line_with.empty()) return true;
  return std::any_of(sign.on_line_with.begin(), sign.on_line_with.end(),
                     [line](std::string_view w) { return line.find(w) != std::string_view::npos; });
}

}  // namespace

std::string_view GpuRefKindName(GpuRefKind kind) {
  switch (kind) {
    case GpuRefKind::kKfdNode: return "kfd-node";
    case GpuRefKind::kAgentHandle: return "agent-handle";
    case GpuRefKind::kPciAddress: return "pci-address";
    case GpuRefKind::kGfxTarget: return "gfx-target";
  }
  return "kfd-node";
}

const std::vector<CrashSign>& CrashSigns() {
  static const std::vector<CrashSign> kSigns = {
      {"Memory access fault by GPU node-",
       "a GPU memory access fault (the runtime aborts the process)",
       "ROCm/ROCR-Runtime runtime/hsa-runtime/core/runtime/runtime.cpp (VMFaultHandler prints it, then aborts)",
       {}},
      {"HW Exception by GPU node-",
       "a GPU hardware exception (\"reason :GPU Hang\")",
       "ROCm/ROCR-Runtime runtime/hsa-runtime/core/runtime/runtime.cpp (HwExceptionHandler)",
       {}},
      {"HSA_STATUS_ERROR_",
       "an HSA runtime error status (HSA_STATUS_ERROR_*)",
       "ROCm/ROCR-Runtime runtime/hsa-runtime/inc/hsa.h, hsa_ext_amd.h (hsa_status_t)",
       {}},
      {"hipErrorIllegalAddress",
       "an illegal memory access by a GPU kernel (hipErrorIllegalAddress)",
       "ROCm/HIP include/hip/hip_runtime_api.h (hipErrorIllegalAddress = 700)",
       {}},
      {"an illegal memory access was encountered",
       "an illegal memory access by a GPU kernel (HIP's message)",
       "ROCm/clr hipamd/src/hip_error.cpp (hipGetErrorString of hipErrorIllegalAddress)",
       {}},
      {" page fault (src_id:",
       "a GPU page fault in the kernel log (amdgpu [gfxhub]/[mmhub] page fault)",
       "linux Documentation/gpu/amdgpu/debugging.rst (Decoding a GPUVM Page Fault)",
       {}},
      {" timeout, signaled seq=",
       "a GPU ring timeout in the kernel log (a job the GPU did not finish)",
       "linux drivers/gpu/drm/amd/amdgpu/amdgpu_job.c amdgpu_job_timedout()",
       {}},
      {"GPU reset begin",
       "a GPU reset in the kernel log",
       "linux drivers/gpu/drm/amd/amdgpu/amdgpu_device.c amdgpu_device_gpu_recover()",
       {}},
      {"segfault at",
       "a segfault in a ROCm library (the kernel's segfault line names it)",
       "linux arch/x86/mm/fault.c show_signal_msg() (\"segfault at ... in LIBRARY\")",
       {"libamdhip64", "libhsa-runtime64", "libhsakmt", "librocblas", "libMIOpen", "libhipblaslt", "libamd_comgr"}},
      {"core dumped",
       "a process that died and dumped core",
       "GNU bash jobs.c (\"(core dumped)\" after a signal's name); systemd-coredump",
       {}},
  };
  return kSigns;
}

bool CrashLogReading::NamesOnlyOtherGpus() const { return gpus.empty() && names_other_gpu; }

CrashLogReading ReadCrashLog(std::string_view log, const std::vector<detect::Gpu>& gpus) {
  Reader reader(gpus);
  const std::vector<CrashSign>& signs = CrashSigns();
  std::vector<bool> shown(signs.size(), false);
  std::set<std::string_view> missing;
  // Line by line without a vector of them: 16 MiB of newlines would be 16 M views (256 MiB).
  for (std::string_view rest = log; !rest.empty();) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    reader.Line(line);
    for (size_t i = 0; i < signs.size(); ++i) shown[i] = shown[i] || SignOnLine(line, signs[i]);
    for (const MissingCodeError& e : kMissingCode)
      if (line.find(e.needle) != std::string_view::npos) missing.insert(e.name);
  }
  CrashLogReading reading = std::move(reader).Finish();
  for (size_t i = 0; i < signs.size(); ++i)
    if (shown[i]) reading.crash.push_back(&signs[i]);
  for (const MissingCodeError& e : kMissingCode)
    if (missing.count(e.name) > 0) reading.missing_code.emplace_back(e.name);
  return reading;
}

}  // namespace rocmtune::diagnose
