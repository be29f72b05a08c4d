// rsmi_list: lists the GPUs rocm-smi-lib (librocm_smi64) sees, one line per GPU:
//   <pci address dddd:bb:dd.f> <vendor:device>     e.g. "0000:64:00.0 1002:15bf"
// Exit 0 on success (even with zero GPUs), 2 when rsmi_init fails, 3 when a per-device query fails;
// errors go to stderr with rocm-smi-lib's status string.
#include <cinttypes>
#include <cstdint>
#include <cstdio>

#include <rocm_smi/rocm_smi.h>

namespace {

const char* status_text(rsmi_status_t st) {
  const char* s = nullptr;
  if (rsmi_status_string(st, &s) != RSMI_STATUS_SUCCESS || s == nullptr) return "(unknown status)";
  return s;
}

int fail(const char* what, rsmi_status_t st, int code) {
  std::fprintf(stderr, "rsmi_list: %s failed: %d %s\n", what, static_cast<int>(st), status_text(st));
  return code;
}

}  // namespace

int main() {
  if (rsmi_status_t st = rsmi_init(0); st != RSMI_STATUS_SUCCESS) return fail("rsmi_init", st, 2);

  int rc = 0;
  uint32_t n = 0;
  if (rsmi_status_t st = rsmi_num_monitor_devices(&n); st != RSMI_STATUS_SUCCESS) {
    rc = fail("rsmi_num_monitor_devices", st, 3);
    n = 0;
  }
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t bdfid = 0;
    if (rsmi_status_t st = rsmi_dev_pci_id_get(i, &bdfid); st != RSMI_STATUS_SUCCESS) {
      rc = fail("rsmi_dev_pci_id_get", st, 3);
      continue;
    }
    uint16_t vendor_id = 0;
    if (rsmi_status_t st = rsmi_dev_vendor_id_get(i, &vendor_id); st != RSMI_STATUS_SUCCESS) {
      rc = fail("rsmi_dev_vendor_id_get", st, 3);
      continue;
    }
    uint16_t device_id = 0;
    if (rsmi_status_t st = rsmi_dev_id_get(i, &device_id); st != RSMI_STATUS_SUCCESS) {
      rc = fail("rsmi_dev_id_get", st, 3);
      continue;
    }
    // BDF id layout (rocm_smi.h): domain 63:32, bus 15:8, device 7:3, function 2:0.
    const auto domain = static_cast<unsigned>((bdfid >> 32) & 0xffffffffu);
    const auto bus = static_cast<unsigned>((bdfid >> 8) & 0xffu);
    const auto dev = static_cast<unsigned>((bdfid >> 3) & 0x1fu);
    const auto fn = static_cast<unsigned>(bdfid & 0x7u);
    std::printf("%04x:%02x:%02x.%x %04x:%04x\n", domain, bus, dev, fn, static_cast<unsigned>(vendor_id),
                static_cast<unsigned>(device_id));
  }
  rsmi_shut_down();
  return rc;
}
