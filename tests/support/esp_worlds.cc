#include "esp_worlds.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace rocmtune::testing {
namespace {

namespace fs = std::filesystem;

void Put(const std::string& root, const std::string& rel, const std::string& content, unsigned mode = 0644) {
  fs::path p = fs::path(root) / rel;
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << content;
  ::chmod(p.c_str(), mode);
}

void Remove(const std::string& root, const std::string& rel) { fs::remove_all(fs::path(root) / rel); }

constexpr const char* kPopUuid = "65f37931-02ec-4a64-89ae-c82f88558f71";  // rx7900xtx's root
constexpr const char* kPopOptions = "quiet loglevel=0 systemd.show_status=false splash";

}  // namespace

void MakePopOs(const std::string& root) {
  Put(root, "etc/os-release",
      "NAME=\"Pop!_OS\"\nVERSION=\"22.04 LTS\"\nID=pop\nID_LIKE=\"ubuntu debian\"\n"
      "PRETTY_NAME=\"Pop!_OS 22.04 LTS\"\nVERSION_ID=\"22.04\"\nHOME_URL=\"https://pop.system76.com\"\n"
      "SUPPORT_URL=\"https://support.system76.com\"\nBUG_REPORT_URL=\"https://github.com/pop-os/pop/issues\"\n"
      "PRIVACY_POLICY_URL=\"https://system76.com/privacy\"\nVERSION_CODENAME=jammy\nUBUNTU_CODENAME=jammy\n"
      "LOGO=distributor-logo-pop-os\n");
  Remove(root, "etc/default/grub.d");
  Remove(root, "usr/sbin/update-grub");
  Remove(root, "boot/grub");
  std::string section =
      "{\n    \"kernel_options\": [\n      \"quiet\",\n      \"loglevel=0\",\n      \"systemd.show_status=false\",\n"
      "      \"splash\"\n    ],\n    \"esp_path\": \"/boot/efi\",\n    \"setup_loader\": true,\n"
      "    \"manage_mode\": false,\n    \"force_update\": false,\n    \"live_mode\": false,\n    \"config_rev\": 3\n  "
      "}";
  Put(root, "etc/kernelstub/configuration",
      fmt::format("{{\n  \"default\": {},\n  \"user\": {}\n}}", section, section));
  Put(root, "usr/bin/kernelstub", "#!/bin/sh\n# no-op stub so the tool is found\nexit 0\n", 0755);
  Put(root, "boot/efi/loader/loader.conf", "default Pop_OS-current\n");
  std::string dir = fmt::format("/EFI/Pop_OS-{}", kPopUuid);
  for (auto [name, suffix] : {std::pair{"Pop_OS-current", ""}, std::pair{"Pop_OS-oldkern", "-previous"}})
    Put(root, fmt::format("boot/efi/loader/entries/{}.conf", name),
        fmt::format("title Pop!_OS\nlinux {}/vmlinuz{}.efi\ninitrd {}/initrd.img{}\noptions root=UUID={} ro {}\n", dir,
                    suffix, dir, suffix, kPopUuid, kPopOptions));
  Put(root, "proc/cmdline",
      fmt::format("initrd=\\EFI\\Pop_OS-{}\\initrd.img root=UUID={} ro {}\n", kPopUuid, kPopUuid, kPopOptions));
}

void MakeUbuntuSdBoot(const std::string& root, bool root_only) {
  constexpr const char* kUuid = "4bb07798-7b76-41bf-84b6-c4336d8ef788";  // rx5700xt's root
  constexpr const char* kMachine = "0f6e3d2c9a8b47e1b2c3d4e5f6a7b8c9";
  Remove(root, "etc/default/grub.d");
  Remove(root, "usr/sbin/update-grub");
  Remove(root, "boot/grub");
  Put(root, "etc/machine-id", fmt::format("{}\n", kMachine));
  Put(root, "boot/efi/loader/loader.conf", fmt::format("timeout 3\ndefault {}-*\n", kMachine));
  for (const char* kernel : {"6.8.0-45-generic", "6.8.0-40-generic"})
    Put(root, fmt::format("boot/efi/loader/entries/{}-{}.conf", kMachine, kernel),
        fmt::format("# Boot Loader Specification type#1 entry\ntitle      Ubuntu 24.04.1 LTS\nversion    {}\n"
                    "machine-id {}\nsort-key   ubuntu\noptions    root=UUID={} ro quiet splash iommu=pt\n"
                    "linux      /{}/{}/linux\ninitrd     /{}/{}/initrd.img-{}\n",
                    kernel, kMachine, kUuid, kMachine, kernel, kMachine, kernel, kernel));
  Put(root, "proc/cmdline",
      fmt::format("initrd=\\{}\\6.8.0-45-generic\\initrd.img-6.8.0-45-generic root=UUID={} ro quiet splash iommu=pt\n",
                  kMachine, kUuid));
  if (root_only) ::chmod((fs::path(root) / "boot/efi").c_str(), 0700);
}

}  // namespace rocmtune::testing
