#include "faults/fault_line.h"

#include <limits>

#include "detect/pci_address.h"
#include "faults/fault.h"
#include "util/text.h"

namespace rocmtune::faults {
namespace {

constexpr size_t kPciLen = 12;  // "0000:03:00.0"

bool Has(std::string_view s, std::string_view needle) { return s.find(needle) != std::string_view::npos; }

// A name the kernel printed (a comm, a ring): bounded, control bytes escaped.
std::string Field(std::string_view s, size_t max_bytes = kMaxFaultFieldBytes) {
  s = text::Trim(s);
  if (s.size() > max_bytes) s = text::Trim(s.substr(0, max_bytes));
  return text::EscapeControl(s);
}

// A line's detail (the fault's address line, a status word, the runtime's reason): longer than a
// name ("in page starting at address 0x00007f1c2a400000 from client 0x1b (UTCL2)" is 75 bytes).
std::string Detail(std::string_view s) { return Field(s, kMaxFaultDetailBytes); }

// The leading decimal digits of `s` as a number, when there are any and they fit.
template <typename T>
std::optional<T> LeadingNumber(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
  if (n == 0 || n > 19) return std::nullopt;
  auto v = text::ParseU64(s.substr(0, n));
  if (!v || *v > static_cast<uint64_t>(std::numeric_limits<T>::max())) return std::nullopt;
  return static_cast<T>(*v);
}

// Strips what precedes the message itself: a pasted "kernel: " or "[  12.345678] ", the device
// ("amdgpu 0000:03:00.0: "), the driver's own "amdgpu: " and DRM_ERROR's "[drm:FUNC [amdgpu]] *ERROR* ".
std::string_view Body(std::string_view message, std::string& pci) {
  std::string_view s = text::Trim(message);
  // A pasted journalctl line: "Jan 09 18:55:45 host kernel: ".
  if (size_t k = s.find("kernel: "); k < 48) s.remove_prefix(k + 8);  // npos is never < 48
  // dmesg's "[  402.306461] " and dmesg -T's "[Tue Jul 15 19:00:37 2025] ", not DRM's "[drm:...]".
  if (s.starts_with("[") && !s.starts_with("[drm")) {
    size_t close = s.find("] ");
    if (close < 40) s = text::Trim(s.substr(close + 2));  // npos is never < 40
  }
  for (std::string_view driver : {"amdgpu ", "kfd "}) {
    if (!s.starts_with(driver)) continue;
    std::string_view rest = s.substr(driver.size());
    // "kfd kfd: amdgpu: ..." names no PCI address; "amdgpu 0000:03:00.0: ..." does.
    if (rest.size() > kPciLen + 1 && rest[kPciLen] == ':')
      if (auto a = detect::ParsePciAddress(rest.substr(0, kPciLen))) {
        pci = a->ToString();
        s = text::Trim(rest.substr(kPciLen + 1));
      }
    if (driver == "kfd " && rest.starts_with("kfd: ")) s = text::Trim(rest.substr(5));
  }
  if (s.starts_with("[drm:")) {
    size_t close = s.find("]] ");
    if (close != std::string_view::npos) s = text::Trim(s.substr(close + 3));
  }
  for (std::string_view p : {"*ERROR* ", "amdgpu: ", "[drm] "})
    if (s.starts_with(p)) s = text::Trim(s.substr(p.size()));
  return s;
}

// "NAME pid N thread TNAME pid M" (a trailing ")" allowed), or "NAME pid N". Names may hold
// spaces (a thread's comm): the last " pid " of each half ends its name.
void ReadTaskInfo(std::string_view s, FaultLine& out) {
  std::string_view head = s, tail;
  if (size_t t = s.rfind(" thread "); t != std::string_view::npos) {
    head = s.substr(0, t);
    tail = s.substr(t + 8);
  }
  size_t p = head.rfind(" pid ");
  if (p == std::string_view::npos) return;
  out.process = Field(head.substr(0, p));
  out.pid = LeadingNumber<int64_t>(head.substr(p + 5));
  // pasid 0 faults (the kernel's own work) print "for process  pid 0 thread  pid 0": no process.
  if (out.pid == 0) out.pid.reset();
  if (size_t q = tail.rfind(" pid "); q != std::string_view::npos) {
    out.thread = Field(tail.substr(0, q));
    out.thread_pid = LeadingNumber<int64_t>(tail.substr(q + 5));
    if (out.thread_pid == 0) out.thread_pid.reset();
  }
}

bool IsL2Detail(std::string_view s) {
  for (std::string_view p : {"Faulty UTCL2 client ID",
                             "MORE_FAULTS:", "WALKER_ERROR:", "PERMISSION_FAULTS:", "MAPPING_ERROR:", "RW:", "cid:"})
    if (s.starts_with(p)) return true;
  return false;
}

void ReadPageFault(std::string_view s, size_t at, FaultLine& out) {
  out.form = LineForm::kPageFault;
  if (s.starts_with("[")) {
    size_t close = s.find(']');
    if (close != std::string_view::npos && close < at) out.hub = Field(s.substr(1, close - 1));
  }
  if (size_t p = s.find("pasid:", at); p != std::string_view::npos)
    out.pasid = LeadingNumber<uint32_t>(s.substr(p + 6));
  // Up to v6.9 the task is on the same line: ", for process NAME pid N thread T pid M)".
  if (size_t p = s.find(", for process ", at); p != std::string_view::npos) ReadTaskInfo(s.substr(p + 14), out);
}

void ReadRuntime(std::string_view s, FaultLine& out) {
  out.form = LineForm::kRuntimeFault;
  if (size_t n = s.find("by GPU node-"); n != std::string_view::npos)
    out.kfd_node = LeadingNumber<int>(s.substr(n + 12));
  if (size_t r = s.find("Reason: "); r != std::string_view::npos) out.detail = Detail(s.substr(r + 8));
  else
    for (std::string_view e : {"HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION", "HSA_STATUS_ERROR_MEMORY_FAULT"})
      if (Has(s, e)) out.detail = std::string(e);
}

}  // namespace

FaultLine ReadFaultLine(std::string_view message) {
  FaultLine out;
  if (Has(message, "Memory access fault by GPU node-") || Has(message, "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION") ||
      Has(message, "HSA_STATUS_ERROR_MEMORY_FAULT")) {
    ReadRuntime(message, out);
    return out;
  }
  std::string pci;
  std::string_view s = Body(message, pci);
  out.pci_address = pci;
  if (size_t at = s.find("page fault (src_id:"); at != std::string_view::npos) {
    ReadPageFault(s, at, out);
  } else if (constexpr std::string_view kInfo = "Process information: process "; s.starts_with(kInfo)) {
    out.form = LineForm::kProcessInformation;
    ReadTaskInfo(s.substr(kInfo.size()), out);
  } else if (s.starts_with("Process ") || s.starts_with("in process ") || s.starts_with("for process ")) {
    out.form = LineForm::kTaskInfo;
    ReadTaskInfo(s.substr(s.find("rocess ") + 7), out);
  } else if (s.starts_with("in page starting at address ")) {
    out.form = LineForm::kFaultAddress;
    out.detail = Detail(s);
  } else if (Has(s, "L2_PROTECTION_FAULT_STATUS:")) {
    out.form = LineForm::kL2Status;
    out.detail = Detail(s);
  } else if (IsL2Detail(s)) {
    out.form = LineForm::kL2Detail;
  } else if (s.starts_with("ring ") && Has(s, " timeout")) {
    out.ring = Field(s.substr(5, s.find(" timeout") - 5));
    out.form = Has(s, "soft recovered") ? LineForm::kRingSoftRecovered : LineForm::kRingTimeout;
    if (out.form == LineForm::kRingTimeout && !Has(s, "signaled seq=")) out.form = LineForm::kNone;
  } else if (s.starts_with("Ring ") && (Has(s, " reset succeeded") || Has(s, " reset failed"))) {
    // amdgpu_job.c's per-ring reset after a timeout (6.12 on): the timeout's outcome.
    out.form = Has(s, " reset succeeded") ? LineForm::kRingResetSucceeded : LineForm::kRingResetFailed;
    out.detail = Detail(s);
  } else if (s.starts_with("GPU reset begin!")) {
    out.form = LineForm::kResetBegin;
  } else if (s.starts_with("GPU reset(") && Has(s, ") succeeded!")) {
    out.form = LineForm::kResetSucceeded;
  } else if ((s.starts_with("GPU reset(") && Has(s, ") failed")) || s.starts_with("GPU reset end with ret = ") ||
             s.starts_with("GPU Recovery Failed") || s.starts_with("ASIC reset failed")) {
    out.form = LineForm::kResetFailed;
    out.detail = Detail(s);
  } else if ((s.starts_with("MES") && (Has(s, "failed to respond to msg=") || Has(s, "failed to response msg="))) ||
             s.starts_with("MES ring buffer is full") || s.starts_with("MES might be in unrecoverable state") ||
             Has(s, "hardware queue from MES")) {
    out.form = LineForm::kMes;
    out.detail = Detail(s);
  } else if (Has(s, ", queue evicted") || s.starts_with("Started evicting pasid 0x") ||
             (s.starts_with("Evicting PASID ") && Has(s, " queues"))) {
    // kfd_svm.c's vital buffer; kfd_process.c evict_process_worker's "Started evicting pasid
    // 0x%x" (older kernels: kfd_device_queue_manager.c "Evicting PASID 0x%x queues").
    out.form = LineForm::kKfdEviction;
    out.detail = Detail(s);
    if (size_t p = s.find("pasid 0x"); p != std::string_view::npos) {
      std::string_view hex = s.substr(p + 8);
      hex = hex.substr(0, hex.find_first_not_of("0123456789abcdefABCDEF"));
      if (auto v = text::ParseHex(hex); v && *v <= UINT32_MAX) out.pasid = static_cast<uint32_t>(*v);
    }
  }
  return out;
}

}  // namespace rocmtune::faults
