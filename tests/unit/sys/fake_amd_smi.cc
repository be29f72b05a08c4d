// A test-only stand-in for amd-smi's libamd_smi: Debian 12 packages neither the library nor its
// header, so sys/amd_smi.cc is tested against this. The types and signatures are amd-smi's own
// (ROCm/rocm-systems projects/amdsmi/include/amd_smi/amdsmi.h, 2026; the same in ROCm/amdsmi
// 0ceca28), declared here again rather than taken from core/sys/amd_smi_api.h, so a wrong
// declaration there does not agree with itself. FAKE_AMDSMI_MODE picks the behaviour:
//   (unset)  one GPU at 0000:03:00.0 (bdfid 0x300) with the values the test expects
//   abort    amdsmi_init aborts, as rocm-smi-lib's failed assert on the WINDOW_3D power profile does
//   hang     amdsmi_init never returns
// amdsmi_init answers AMDSMI_STATUS_INVAL (1) unless passed AMDSMI_INIT_AMD_GPUS alone.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

extern "C" {

typedef enum { AMDSMI_STATUS_SUCCESS = 0, AMDSMI_STATUS_INVAL = 1, AMDSMI_STATUS_NOT_SUPPORTED = 2 } amdsmi_status_t;
typedef void* amdsmi_socket_handle;
typedef void* amdsmi_processor_handle;
typedef enum { AMDSMI_INIT_AMD_GPUS = (1 << 1) } amdsmi_init_flags_t;
typedef enum {
  AMDSMI_GPU_BLOCK_UMC = 0x1,
  AMDSMI_GPU_BLOCK_SDMA = 0x2,
  AMDSMI_GPU_BLOCK_GFX = 0x4,
  AMDSMI_GPU_BLOCK_RESERVED = 0x8000000000000000
} amdsmi_gpu_block_t;
typedef enum {
  AMDSMI_FW_ID_CP_MEC1 = 7,
  AMDSMI_FW_ID_RLC = 9,
  AMDSMI_FW_ID_VCN = 18,
  AMDSMI_FW_ID_PSP_SOSDRV = 30,
  AMDSMI_FW_ID_PM = 77,
  AMDSMI_FW_ID__MAX = 80
} amdsmi_fw_block_t;
typedef struct {
  uint8_t num_fw_info;
  struct {
    amdsmi_fw_block_t fw_id;
    uint64_t fw_version;
    uint64_t reserved[2];
  } fw_info_list[AMDSMI_FW_ID__MAX];
  uint32_t reserved[7];
} amdsmi_fw_info_t;
typedef struct {
  uint64_t correctable_count;
  uint64_t uncorrectable_count;
  uint64_t deferred_count;
  uint64_t reserved[5];
} amdsmi_error_count_t;
typedef struct {
  uint32_t major;
  uint32_t minor;
  uint32_t release;
  const char* build;
} amdsmi_version_t;

namespace {
int socket_token, gpu_token;
bool initialized = false;
bool Mode(const char* want) {
  const char* mode = getenv("FAKE_AMDSMI_MODE");
  return mode != nullptr && strcmp(mode, want) == 0;
}
}  // namespace

amdsmi_status_t amdsmi_init(uint64_t init_flags) {
  if (Mode("abort")) abort();
  if (Mode("hang"))
    for (;;) pause();
  if (init_flags != AMDSMI_INIT_AMD_GPUS) return AMDSMI_STATUS_INVAL;
  initialized = true;
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_shut_down(void) { return AMDSMI_STATUS_SUCCESS; }

amdsmi_status_t amdsmi_status_code_to_string(amdsmi_status_t status, const char** status_string) {
  *status_string = status == AMDSMI_STATUS_NOT_SUPPORTED ? "AMDSMI_STATUS_NOT_SUPPORTED: Feature not supported"
                                                         : "AMDSMI_STATUS_INVAL: Invalid parameters";
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_lib_version(amdsmi_version_t* version) {
  if (!initialized) return AMDSMI_STATUS_INVAL;
  *version = {26, 2, 0, "26.2.0"};
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_socket_handles(uint32_t* socket_count, amdsmi_socket_handle* socket_handles) {
  if (socket_handles != nullptr && *socket_count >= 1) socket_handles[0] = &socket_token;
  *socket_count = 1;
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_processor_handles(amdsmi_socket_handle socket_handle, uint32_t* processor_count,
                                             amdsmi_processor_handle* processor_handles) {
  if (socket_handle != &socket_token) return AMDSMI_STATUS_INVAL;
  if (processor_handles != nullptr && *processor_count >= 1) processor_handles[0] = &gpu_token;
  *processor_count = 1;
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_gpu_bdf_id(amdsmi_processor_handle processor_handle, uint64_t* bdfid) {
  if (processor_handle != &gpu_token) return AMDSMI_STATUS_INVAL;
  *bdfid = 0x300;  // 0000:03:00.0
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_fw_info(amdsmi_processor_handle, amdsmi_fw_info_t* info) {
  memset(info, 0xff, sizeof *info);  // the real library writes its whole structure
  info->num_fw_info = 4;
  info->fw_info_list[0] = {AMDSMI_FW_ID_RLC, 0x61, {}};
  info->fw_info_list[1] = {AMDSMI_FW_ID_CP_MEC1, 0x1fe, {}};
  info->fw_info_list[2] = {AMDSMI_FW_ID_PM, 0x4e5600, {}};
  info->fw_info_list[3] = {AMDSMI_FW_ID_PSP_SOSDRV, 0x210c64, {}};
  info->fw_info_list[4] = {AMDSMI_FW_ID_VCN, 0x777, {}};  // past num_fw_info: not listed
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_gpu_ecc_enabled(amdsmi_processor_handle, uint64_t* enabled_blocks) {
  *enabled_blocks = AMDSMI_GPU_BLOCK_UMC | AMDSMI_GPU_BLOCK_GFX;
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_gpu_ecc_count(amdsmi_processor_handle, amdsmi_gpu_block_t block, amdsmi_error_count_t* ec) {
  if (block == AMDSMI_GPU_BLOCK_SDMA) return AMDSMI_STATUS_NOT_SUPPORTED;
  *ec = {block == AMDSMI_GPU_BLOCK_UMC ? 5U : 0U, block == AMDSMI_GPU_BLOCK_UMC ? 2U : 1U, 9, {}};
  return AMDSMI_STATUS_SUCCESS;
}

amdsmi_status_t amdsmi_get_gpu_pci_replay_counter(amdsmi_processor_handle, uint64_t* counter) {
  *counter = 42;
  return AMDSMI_STATUS_SUCCESS;
}

}  // extern "C"
