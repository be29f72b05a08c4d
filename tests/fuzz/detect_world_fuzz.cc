// Detection from a world's files: the input is split (fuzz::kSeparator) into the contents of
// a KFD node's properties, the GPU's PCI uevent, the GC block of ip_discovery (major, minor,
// revision), amdgpu.ids, the `device` attribute, proc/cmdline and etc/os-release of a copy of
// the phoenix world, and detect::Detect runs on it (without libdrm: this is not "/"). The other
// writers' files come after them (detect/other_writers.h): tuned's active_profile and the profile
// it names, GameMode's /etc/gamemode.ini, a drop-in of power-profiles-daemon and /proc/cpuinfo,
// with the units of tuned and power-profiles-daemon and gamemoded in place (written once).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "detect/inventory.h"
#include "fuzz_support.h"
#include "sys/root.h"

using namespace rocmtune;

namespace {

constexpr std::string_view kFiles[] = {
    "sys/devices/virtual/kfd/kfd/topology/nodes/1/properties",
    "sys/devices/pci0000:00/0000:64:00.0/uevent",
    "sys/devices/pci0000:00/0000:64:00.0/ip_discovery/die/0/11/0/major",
    "sys/devices/pci0000:00/0000:64:00.0/ip_discovery/die/0/11/0/minor",
    "sys/devices/pci0000:00/0000:64:00.0/ip_discovery/die/0/11/0/revision",
    "usr/share/libdrm/amdgpu.ids",
    "sys/devices/pci0000:00/0000:64:00.0/device",
    "proc/cmdline",
    "etc/os-release",
    "etc/tuned/active_profile",
    "etc/tuned/fz/tuned.conf",
    "etc/gamemode.ini",
    "etc/systemd/system/power-profiles-daemon.service.d/50-x.conf",
    "proc/cpuinfo",
};

// Installed and enabled (a .wants entry need only exist: a file stands for the link).
constexpr std::string_view kWriters[] = {
    "usr/lib/systemd/system/tuned.service",
    "etc/systemd/system/multi-user.target.wants/tuned.service",
    "lib/systemd/system/power-profiles-daemon.service",
    "etc/systemd/system/graphical.target.wants/power-profiles-daemon.service",
    "usr/bin/gamemoded",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchRoot world("phoenix");
  static const sys::Root root = [] {
    for (std::string_view f : kWriters) world.Write(f, "[Service]\nExecStart=/usr/libexec/power-profiles-daemon\n");
    return *sys::Root::Open(world.path());
  }();
  static_assert(std::size(kFiles) == 14);

  auto parts = fuzz::SplitInput(fuzz::AsText(data, size), std::size(kFiles));
  for (size_t i = 0; i < std::size(kFiles); ++i) world.Write(kFiles[i], parts[i]);
  detect::Inventory inventory = detect::Detect(root, {.use_libdrm = false});
  (void)inventory;
  return 0;
}
