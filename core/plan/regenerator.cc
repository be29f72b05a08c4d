#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

#include "plan/plan.h"

namespace rocmtune::plan {
namespace {

// update-grub is Debian's `grub-mkconfig -o /boot/grub/grub.cfg`; kernel-install add-all
// rebuilds every installed kernel's entry/UKI; the initramfs tools rebuild every image
// (boot/initramfs.cc). The artifacts: grub.cfg as update-grub/grub(2)-mkconfig -o write it, the
// BLS entries grubby edits and kernel-install adds, each tool's default image names (initrd.img-V
// for initramfs-tools, initramfs-V.img for dracut and mkinitcpio, booster-V.img). The initramfs rows are named as
// detect/boot_setup.cc names the tool. The trial switches (boot/trial_boot.h) write GRUB's
// environment block (grub-editenv FILE, grub2-editenv's `-` = /boot/grub2/grubenv) and systemd's
// LoaderEntryOneShot EFI variable (bootctl set-oneshot; docs/BOOT_LOADER_INTERFACE.md). systemctl
// and busctl tell power-profiles-daemon about rocmtune's drop-in (knobs/service_backend.h): they
// write no file. rpm-ostree makes a new deployment, whose BLS entry ostree writes
// (ostree-sysroot-deploy.c bootloader_entry_filename: ostree-N.conf, ostree-N-OS.conf before 2024.5).
constexpr std::array<RegeneratorRow, 18> kRegenerators = {{
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
    {Regenerator::kGrubEditenv, "grub-editenv", "grub-editenv", BackendId::kBootloader, "boot/grub/grubenv"},
    {Regenerator::kGrub2Editenv, "grub2-editenv", "grub2-editenv", BackendId::kBootloader, "boot/grub2/grubenv"},
    {Regenerator::kBootctl, "bootctl", "bootctl", BackendId::kBootloader,
     "sys/firmware/efi/efivars/LoaderEntryOneShot-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"},
    {Regenerator::kSystemctl, "systemctl", "systemctl", BackendId::kService, ""},
    {Regenerator::kBusctl, "busctl", "busctl", BackendId::kService, ""},
    {Regenerator::kRpmOstreeKargs, "rpm-ostree-kargs", "rpm-ostree", BackendId::kBootloader,
     "boot/loader/entries/ostree-*.conf"},
    {Regenerator::kRpmOstreeInitramfsEtc, "rpm-ostree-initramfs-etc", "rpm-ostree", BackendId::kInitramfs,
     "boot/loader/entries/ostree-*.conf"},
    {Regenerator::kBootc, "bootc", "bootc", BackendId::kBootloader, "boot/loader/entries/ostree-*.conf"},
    // kernelstub edits its configuration's `user` kernel_options and rewrites the ESP's entries.
    {Regenerator::kKernelstub, "kernelstub", "kernelstub", BackendId::kBootloader, "etc/kernelstub/configuration"},
}};

constexpr std::array<std::pair<BackendId, std::string_view>, 7> kBackends = {{
    {BackendId::kModprobe, "modprobe"},
    {BackendId::kCmdline, "cmdline"},
    {BackendId::kSysfs, "sysfs"},
    {BackendId::kEnv, "env"},
    {BackendId::kInitramfs, "initramfs"},
    {BackendId::kBootloader, "bootloader"},
    {BackendId::kService, "service"},
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

std::optional<std::vector<std::string>> InverseSwitch(const std::vector<std::string>& argv) {
  constexpr std::string_view kNextEntry = "next_entry";
  if (argv.size() == 4 &&
      (argv[0] == Row(Regenerator::kGrubEditenv).program || argv[0] == Row(Regenerator::kGrub2Editenv).program)) {
    if (argv[2] == "set" && argv[3].starts_with(std::string(kNextEntry) + "="))
      return std::vector<std::string>{argv[0], argv[1], "unset", std::string(kNextEntry)};
    if (argv[2] == "unset" && argv[3] == kNextEntry)  // a cleanup undone: the trial's own entry again
      return std::vector<std::string>{argv[0], argv[1], "set", fmt::format("{}={}", kNextEntry, kTrialEntryId)};
    return std::nullopt;
  }
  if (argv.size() == 3 && argv[0] == Row(Regenerator::kBootctl).program && argv[1] == "set-oneshot")
    return std::vector<std::string>{argv[0], argv[1], argv[2].empty() ? fmt::format("{}.conf", kTrialEntryId) : ""};
  // Not SetActionEnabled(true): an action the daemon started without (its drop-in read at a
  // restart since) is not there to enable. Started again without the drop-in, it runs it.
  if (argv == PpdSetActionArgv(false)) return SystemctlArgv(true);
  if (argv == PpdSetActionArgv(true)) return PpdSetActionArgv(false);
  return std::nullopt;
}

std::vector<std::string> PpdSetActionArgv(bool enabled) {
  return {"busctl",
          "call",
          "org.freedesktop.UPower.PowerProfiles",
          "/org/freedesktop/UPower/PowerProfiles",
          "org.freedesktop.UPower.PowerProfiles",
          "SetActionEnabled",
          "sb",
          "amdgpu_dpm",
          enabled ? "true" : "false"};
}

std::vector<std::string> SystemctlArgv(bool restart) {
  if (restart) return {"systemctl", "try-restart", "power-profiles-daemon.service"};
  return {"systemctl", "daemon-reload"};
}

std::optional<Regenerator> RegeneratorOfProgram(std::string_view program) {
  for (const RegeneratorRow& r : kRegenerators)
    if (r.program == program) return r.id;
  return std::nullopt;
}

std::optional<BackendId> ParseBackendId(std::string_view name) {
  for (const auto& [id, n] : kBackends)
    if (n == name) return id;
  return std::nullopt;
}

}  // namespace rocmtune::plan
