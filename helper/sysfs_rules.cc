// Sysfs writes: only `<device_dir>/<attribute>` of an amdgpu GPU, only attributes the sysfs
// backend manages, only values the attribute takes. Never a raw path from a caller
// (ARCHITECTURE.md "Security model"): the write happens as root, and sysfs holds attributes that
// reset devices, unbind drivers or flash firmware.
#include <fmt/format.h>

#include "helper/allow_list.h"
#include "helper/rules.h"
#include "knobs/sysfs_attributes.h"
#include "util/text.h"

namespace rocmtune::helper {
namespace {

// The longest value any managed attribute takes is "profile_min_sclk" (16 bytes).
constexpr size_t kMaxSysfsValueBytes = 32;

const detect::Gpu* GpuWithDeviceDir(const detect::Inventory& inventory, std::string_view dir) {
  for (const detect::Gpu& gpu : inventory.gpus)
    if (gpu.device_dir && *gpu.device_dir == dir) return &gpu;
  return nullptr;
}

// The inventory only holds amdgpu-bound devices, but it was taken earlier: a device can be
// unbound, or (on a hostile tree) be a different device by now. The driver link as the kernel
// reports it right before the write is what counts.
Result<void> CheckDriverIsAmdgpu(const sys::Root& root, std::string_view dir) {
  auto uevent = root.ReadFile(fmt::format("{}/uevent", dir), 4096);
  if (!uevent)
    return Refuse(rule::kSysfsDriver, fmt::format("cannot read the device's uevent: {}", uevent.error().message));
  auto fields = text::ParseKeyEqualsValue(*uevent);
  auto driver = fields.find("DRIVER");
  if (driver == fields.end() || driver->second != "amdgpu")
    return Refuse(rule::kSysfsDriver, fmt::format("the device is bound to '{}', not amdgpu",
                                                  driver == fields.end() ? "no driver" : driver->second));
  return {};
}

Result<void> CheckSysfsValue(const sys::Root& root, std::string_view dir, const knobs::SysfsAttribute& attr,
                             std::string_view value) {
  // The kernel's store functions mostly strip one trailing newline, but nothing rocmtune
  // writes has other whitespace, and a value with a second newline is how a second line gets
  // smuggled.
  // One trailing newline is how sysfs reads a value back (and how `echo` writes it): a revert
  // writes back exactly what was read.
  if (value.ends_with('\n')) value.remove_suffix(1);
  if (value.size() > kMaxSysfsValueBytes) return Refuse(rule::kSysfsValue, "longer than any value the attribute takes");
  for (char c : value)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
      return Refuse(rule::kSysfsValue, "whitespace or a control character in the value");
  // The attribute's codec knows what it takes; some attributes take only what the device lists.
  std::string content;
  if (attr.codec->ReadsDeviceToCheck()) {
    auto raw = root.ReadFile(fmt::format("{}/{}", dir, attr.name), 64 * 1024);
    if (!raw)
      return Refuse(rule::kSysfsValue, fmt::format("cannot read the device's {}: {}", attr.name, raw.error().message));
    content = std::move(*raw);
  }
  if (auto ok = attr.codec->CheckWrite(content, value); !ok)
    return Refuse(rule::kSysfsValue, fmt::format("{} ({})", ok.error().message, attr.name));
  return {};
}

}  // namespace

Result<void> CheckSysfsOp(const sys::Root& root, const detect::Inventory& inventory, const plan::Op& op) {
  if (!op.after || !op.argv.empty()) return Refuse(rule::kOpShape, "a sysfs write has a value and no command");
  if (auto ok = CheckSysfsTarget(root, inventory, op); !ok) return ok;
  size_t slash = op.path.rfind('/');
  return CheckSysfsValue(root, std::string_view(op.path).substr(0, slash),
                         *knobs::FindSysfsAttribute(std::string_view(op.path).substr(slash + 1)), *op.after);
}

Result<void> CheckSysfsTarget(const sys::Root& root, const detect::Inventory& inventory, const plan::Op& op) {
  if (op.backend != plan::BackendId::kSysfs)
    return Refuse(rule::kBackendMismatch, "a sysfs write belongs to the sysfs backend");
  if (auto ok = CheckPathSyntax(op.path); !ok) return ok;
  size_t slash = op.path.rfind('/');
  std::string_view dir = slash == std::string::npos ? std::string_view() : std::string_view(op.path).substr(0, slash);
  std::string_view name = std::string_view(op.path).substr(slash + 1);
  if (!dir.starts_with("sys/") || !GpuWithDeviceDir(inventory, dir))
    return Refuse(rule::kSysfsDevice, "not an attribute of an amdgpu GPU in the inventory");
  const knobs::SysfsAttribute* attr = knobs::FindSysfsAttribute(name);
  if (!attr) {
    std::string managed;
    for (const knobs::SysfsAttribute& a : knobs::SysfsAttributes())
      managed += (managed.empty() ? "" : ", ") + std::string(a.name);
    return Refuse(rule::kSysfsAttribute, fmt::format("'{}' is not managed (managed: {})", name, managed));
  }
  return CheckDriverIsAmdgpu(root, dir);
}

}  // namespace rocmtune::helper
