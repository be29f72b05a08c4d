#include <algorithm>
#include <array>
#include <utility>

#include "plan/plan.h"

namespace rocmtune::plan {
namespace {

// update-grub is Debian's `grub-mkconfig -o /boot/grub/grub.cfg`; kernel-install add-all
// rebuilds every installed kernel's entry/UKI; the initramfs tools rebuild every image
// (knobs/initramfs.cc). The artifacts: grub.cfg as update-grub/grub(2)-mkconfig -o write it, the
// BLS entries grubby edits and kernel-install adds, each tool's default image names (initrd.img-V
// for initramfs-tools, initramfs-V.img for dracut and mkinitcpio, booster-V.img). The initramfs rows are named as
// detect/boot_setup.cc names the tool.
constexpr std::array<RegeneratorRow, 9> kRegenerators = {{
    {Regenerator::kUpdateGrub, "update-grub", "update-grub", BackendId::kBootloader, "boot/grub/grub.cfg"},
    {Regenerator::kGrubMkconfig, "grub-mkconfig", "grub-mkconfig", BackendId::kBootloader, "boot/grub/grub.cfg"},
    {Regenerator::kGrub2Mkconfig, "grub2-mkconfig", "grub2-mkconfig", BackendId::kBootloader, "boot/grub2/grub.cfg"},
    {Regenerator::kGrubby, "grubby", "grubby", BackendId::kBootloader, "boot/loader/entries/*.conf"},
    {Regenerator::kKernelInstall, "kernel-install", "kernel-install", BackendId::kBootloader,
     "boot/loader/entries/*.conf"},
    {Regenerator::kInitramfsTools, "initramfs-tools", "update-initramfs", BackendId::kInitramfs, "boot/initrd.img-*"},
    {Regenerator::kDracut, "dracut", "dracut", BackendId::kInitramfs, "boot/initramfs-*.img"},
    {Regenerator::kMkinitcpio, "mkinitcpio", "mkinitcpio", BackendId::kInitramfs, "boot/initramfs-*.img"},
    {Regenerator::kBooster, "booster", "booster", BackendId::kInitramfs, "boot/booster-*.img"},
}};

constexpr std::array<std::pair<BackendId, std::string_view>, 6> kBackends = {{
    {BackendId::kModprobe, "modprobe"},
    {BackendId::kCmdline, "cmdline"},
    {BackendId::kSysfs, "sysfs"},
    {BackendId::kEnv, "env"},
    {BackendId::kInitramfs, "initramfs"},
    {BackendId::kBootloader, "bootloader"},
}};

}  // namespace

std::span<const RegeneratorRow> Regenerators() { return kRegenerators; }

const RegeneratorRow& Row(Regenerator regenerator) {
  return *std::find_if(kRegenerators.begin(), kRegenerators.end(),
                       [&](const RegeneratorRow& r) { return r.id == regenerator; });
}

std::string_view Name(Regenerator regenerator) { return Row(regenerator).name; }

std::string_view Name(BackendId backend) {
  for (const auto& [id, name] : kBackends)
    if (id == backend) return name;
  return "?";
}

std::optional<Regenerator> ParseRegenerator(std::string_view name) {
  for (const RegeneratorRow& r : kRegenerators)
    if (r.name == name) return r.id;
  return std::nullopt;
}

std::optional<BackendId> ParseBackendId(std::string_view name) {
  for (const auto& [id, n] : kBackends)
    if (n == name) return id;
  return std::nullopt;
}

}  // namespace rocmtune::plan
