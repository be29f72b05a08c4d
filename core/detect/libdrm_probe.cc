#include "detect/libdrm_probe.h"

#include <fcntl.h>

#include <amdgpu.h>
#include <fmt/format.h>

#include "sys/unique_fd.h"
#include "util/handle.h"

namespace rocmtune::detect {
namespace {

// amdgpu_drm.h AMDGPU_IDS_FLAGS_FUSION: the device is an APU.
constexpr uint32_t kIdsFlagsFusion = 0x1;

using DeviceHandle = Handle<amdgpu_device_handle, amdgpu_device_deinitialize>;

void Enrich(Gpu& gpu) {
  if (!gpu.render_node) return;
  std::string path = fmt::format("/dev/dri/{}", *gpu.render_node);
  sys::UniqueFd fd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd.valid()) return;  // no permission or no device: sysfs facts stand
  uint32_t major = 0, minor = 0;
  amdgpu_device_handle raw = nullptr;
  if (amdgpu_device_initialize(fd.get(), &major, &minor, &raw) != 0) return;
  DeviceHandle dev(raw);
  amdgpu_gpu_info info{};
  if (amdgpu_query_gpu_info(dev.get(), &info) == 0) {
    if (!gpu.revision) gpu.revision = fmt::format("{:#04x}", info.pci_rev_id & 0xff);
    if (!gpu.apu) gpu.apu = (info.ids_flags & kIdsFlagsFusion) != 0;
  }
  if (gpu.marketing_name.starts_with("AMD Radeon Graphics (")) {
    if (const char* name = amdgpu_get_marketing_name(dev.get())) gpu.marketing_name = name;
  }
}

}  // namespace

void EnrichWithLibdrm(std::vector<Gpu>& gpus) {
  for (Gpu& gpu : gpus) Enrich(gpu);
}

}  // namespace rocmtune::detect
