#include "detect/boot_setup.h"

#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_tree.h"

namespace rocmtune::detect {
namespace {

using testing::TestTree;

BootSetup Detect(const TestTree& t) {
  auto root = sys::Root::Open(t.path());
  EXPECT_TRUE(root);
  return DetectBootSetup(*root);
}

TEST(BootSetupTest, DebianGrubReadsDropIns) {
  TestTree t;
  t.Write("etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n");
  t.Write("etc/default/grub.d/init-select.cfg", "# no-op\n");
  t.Write("usr/sbin/update-initramfs", "#!/bin/sh\n");
  BootSetup b = Detect(t);
  EXPECT_EQ(b.kind, BootKind::kGrubDebian);
  EXPECT_EQ(b.initramfs, InitramfsKind::kInitramfsTools);
}

TEST(BootSetupTest, UpstreamGrubWithoutDropIns) {
  TestTree t;
  t.Write("etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"loglevel=3 quiet\"\n");
  t.Write("etc/mkinitcpio.conf", "MODULES=(amdgpu)\n");
  BootSetup b = Detect(t);
  EXPECT_EQ(b.kind, BootKind::kGrub);
  EXPECT_EQ(b.initramfs, InitramfsKind::kMkinitcpio);
}

TEST(BootSetupTest, FedoraBls) {
  TestTree t;
  t.Write("etc/default/grub", "GRUB_ENABLE_BLSCFG=true\n");
  t.Write("boot/loader/entries/abc-6.11.4-301.fc41.x86_64.conf", "title Fedora\noptions root=UUID=x ro\n");
  t.Write("etc/dracut.conf", "");
  BootSetup b = Detect(t);
  EXPECT_EQ(b.kind, BootKind::kGrubBls);
  EXPECT_EQ(b.initramfs, InitramfsKind::kDracut);
}

TEST(BootSetupTest, BlsEntriesWithoutBlsGrubAreNotBls) {
  TestTree t;
  t.Write("etc/default/grub", "GRUB_ENABLE_BLSCFG=false\n");
  t.Write("boot/loader/entries/x.conf", "title x\n");
  EXPECT_EQ(Detect(t).kind, BootKind::kGrub);
}

TEST(BootSetupTest, SystemdBoot) {
  TestTree t;
  t.Write("efi/loader/loader.conf", "timeout 3\n");
  t.Write("etc/kernel/cmdline", "root=UUID=x rw\n");
  BootSetup b = Detect(t);
  EXPECT_EQ(b.kind, BootKind::kSystemdBoot);
  EXPECT_EQ(b.evidence.size(), 2u);
}

// An efivarfs string variable of systemd's boot loader interface: attributes, UTF-16LE, NUL.
void LoaderVar(const TestTree& t, std::string_view name, std::string_view value) {
  std::string data("\x06\0\0\0", 4);
  for (char c : value) data += std::string{c, '\0'};
  t.Write(fmt::format("sys/firmware/efi/efivars/{}-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f", name),
          data + std::string(2, '\0'));
}

// Debian 12 on UEFI with systemd-boot and grub-pc's files still there: the ESP at /boot/efi is
// root's only (vfat, umask=0077), and LoaderInfo says which loader booted.
void DebianSdBoot(const TestTree& t) {
  t.Write("etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n");
  t.Write("etc/default/grub.d/init-select.cfg", "# no-op\n");
  t.Write("etc/kernel/cmdline", "root=UUID=1 ro quiet\n");
  t.Write("boot/efi/loader/loader.conf", "timeout 3\n");
  LoaderVar(t, "LoaderInfo", "systemd-boot 252.33-1~deb12u1");
}

TEST(BootSetupTest, LoaderInfoNamesTheLoaderThatBooted) {
  TestTree t;
  DebianSdBoot(t);
  BootSetup b = Detect(t);
  EXPECT_EQ(b.kind, BootKind::kSystemdBoot);
  EXPECT_EQ(b.evidence,
            (std::vector<std::string>{"sys/firmware/efi/efivars/LoaderInfo-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f",
                                      "boot/efi/loader/loader.conf", "etc/kernel/cmdline"}));
  // GRUB 2.12's bli module sets LoaderInfo too: a loader.conf left on the ESP is not what boots.
  LoaderVar(t, "LoaderInfo", "GRUB 2.12");
  EXPECT_EQ(Detect(t).kind, BootKind::kGrubDebian);
  // Not a string of the interface (not UTF-16 ASCII): no evidence either way; the files decide.
  t.Write("sys/firmware/efi/efivars/LoaderInfo-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f",
          std::string("\x06\0\0\0\xff\xfe", 6));
  EXPECT_EQ(Detect(t).kind, BootKind::kSystemdBoot);
}

int DetectAsUser(const void* arg) {
  auto root = sys::Root::Open(static_cast<const TestTree*>(arg)->path());
  if (!root) return 11;
  auto kind = DetectBootSetup(*root).kind;
  return !kind ? 12 : kind == BootKind::kSystemdBoot ? 0 : kind == BootKind::kGrubDebian ? 13 : 14;
}

// rocmtuned's user cannot list /boot/efi: LoaderInfo (efivarfs, 0644) still tells systemd-boot.
// Without it the ESP's loader.conf is invisible: unknown, not the leftover GRUB files' grub-debian
// (before, a user saw grub-debian where root saw systemd-boot).
TEST(BootSetupTest, ARootOnlyEspIsStillSystemdBootForAUser) {
  TestTree t;
  t.Chmod(".", 0755);  // mkdtemp's 0700 would hide everything from "nobody"
  DebianSdBoot(t);
  t.Chmod("boot/efi", 0700);
  int got = testing::RunAsNobody(DetectAsUser, &t);
  if (got == testing::kNoPrivilegeDrop) GTEST_SKIP() << "cannot drop privileges to uid 65534 here";
  EXPECT_EQ(got, 0) << "11: root not opened, 12: unknown, 13: grub-debian, 14: another kind";
  std::filesystem::remove(t.Path("sys/firmware/efi/efivars/LoaderInfo-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"));
  EXPECT_EQ(testing::RunAsNobody(DetectAsUser, &t), 12) << "without LoaderInfo: unknown, never grub-debian";
  EXPECT_EQ(Detect(t).kind, BootKind::kSystemdBoot) << "root reads loader.conf";
}

int UnknownWhyAsUser(const void* arg) {
  auto root = sys::Root::Open(static_cast<const TestTree*>(arg)->path());
  if (!root) return 11;
  BootSetup b = DetectBootSetup(*root);
  if (b.kind) return 12;
  if (b.why_unknown.find("/boot/efi as this user: run as root or through rocmtuned") == std::string::npos) return 13;
  return b.evidence == std::vector<std::string>{"boot/efi"} ? 0 : 14;
}

int KindAsUser(const void* arg) {
  auto root = sys::Root::Open(static_cast<const TestTree*>(arg)->path());
  if (!root) return 11;
  auto kind = DetectBootSetup(*root).kind;
  return kind ? 20 + static_cast<int>(*kind) : 12;
}

// The reason says what could not be read and the way out; a readable ESP without loader.conf
// (GRUB's own ESP) leaves GRUB the answer, and a 0700 ESP does not hide kernelstub's
// configuration in /etc.
TEST(BootSetupTest, AHiddenEspThatCouldDecideIsUnknownWithTheReason) {
  TestTree t;
  t.Chmod(".", 0755);
  t.Write("etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash\"\n");
  t.Write("etc/default/grub.d/init-select.cfg", "# no-op\n");
  t.Write("boot/efi/loader/entries/ubuntu.conf", "title Ubuntu\nlinux /vmlinuz\noptions root=UUID=1 ro\n");
  t.Write("boot/efi/loader/loader.conf", "default ubuntu.conf\n");
  t.Chmod("boot/efi", 0700);
  int got = testing::RunAsNobody(UnknownWhyAsUser, &t);
  if (got == testing::kNoPrivilegeDrop) GTEST_SKIP() << "cannot drop privileges to uid 65534 here";
  EXPECT_EQ(got, 0) << "11: root not opened, 12: a kind, 13: no reason, 14: other evidence";
  EXPECT_TRUE(Detect(t).why_unknown.empty()) << "root has no reason to give";
  t.Chmod("boot/efi", 0755);
  std::filesystem::remove_all(t.Path("boot/efi/loader"));
  EXPECT_EQ(testing::RunAsNobody(KindAsUser, &t), 20 + static_cast<int>(BootKind::kGrubDebian))
      << "a readable ESP without loader.conf: GRUB";
  t.Write("etc/kernelstub/configuration", "{}\n");
  t.Chmod("boot/efi", 0700);
  EXPECT_EQ(testing::RunAsNobody(KindAsUser, &t), 20 + static_cast<int>(BootKind::kKernelstub))
      << "kernelstub's configuration is readable by all";
}

void PopOs(const TestTree& t) {
  t.Write("etc/kernelstub/configuration",
          "{\n  \"default\": {\n    \"kernel_options\": [\n      \"quiet\",\n      \"splash\"\n    ]\n  }\n}");
  t.Write("usr/bin/kernelstub", "#!/usr/bin/python3\n");
  t.Write("boot/efi/loader/loader.conf", "default Pop_OS-current\n");
  t.Write("boot/efi/loader/entries/Pop_OS-current.conf", "title Pop!_OS\nlinux /EFI/Pop_OS-1/vmlinuz.efi\n");
  t.Write("etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash\"\n");  // grub-common's leftover
}

// Pop!_OS: kernelstub writes systemd-boot's entries; its configuration or its program beside the
// entry decides, ahead of loader.conf (systemd-boot) and a leftover /etc/default/grub.
TEST(BootSetupTest, KernelstubFromItsEvidence) {
  TestTree t;
  PopOs(t);
  BootSetup b = Detect(t);
  EXPECT_EQ(b.kind, BootKind::kKernelstub);
  EXPECT_EQ(b.evidence, (std::vector<std::string>{"etc/kernelstub/configuration", "usr/bin/kernelstub",
                                                  "boot/efi/loader/entries/Pop_OS-current.conf"}));
  std::filesystem::remove(t.Path("etc/kernelstub/configuration"));
  EXPECT_EQ(Detect(t).kind, BootKind::kKernelstub) << "the program and its entry";
  std::filesystem::remove(t.Path("boot/efi/loader/entries/Pop_OS-current.conf"));
  EXPECT_EQ(Detect(t).kind, BootKind::kSystemdBoot) << "the program alone decides nothing";
  PopOs(t);
  LoaderVar(t, "LoaderInfo", "GRUB 2.12");
  EXPECT_EQ(Detect(t).kind, BootKind::kGrub) << "GRUB booted it: kernelstub's entries are not used";
  LoaderVar(t, "LoaderInfo", "systemd-boot 249.11-0ubuntu3.12pop0");
  EXPECT_EQ(Detect(t).kind, BootKind::kKernelstub);
}

TEST(BootSetupTest, NoEvidenceIsUnknown) {
  TestTree t;
  t.Write("etc/os-release", "ID=debian\n");  // os-release alone decides nothing
  BootSetup b = Detect(t);
  EXPECT_FALSE(b.kind);
  EXPECT_FALSE(b.initramfs);
}

// The names are the JSON's "boot" values: each kind has one, and it parses back to the kind.
TEST(BootSetupTest, KindNamesRoundTrip) {
  for (BootKind kind :
       {BootKind::kGrubDebian, BootKind::kGrub, BootKind::kGrubBls, BootKind::kSystemdBoot, BootKind::kKernelstub})
    EXPECT_EQ(ParseBootKind(BootKindName(kind)), kind) << BootKindName(kind);
  EXPECT_EQ(BootKindName(BootKind::kGrubDebian), "grub-debian");
  EXPECT_EQ(BootKindName(BootKind::kSystemdBoot), "systemd-boot");
  EXPECT_EQ(BootKindName(BootKind::kKernelstub), "kernelstub");
  EXPECT_FALSE(ParseBootKind("lilo"));
}

}  // namespace
}  // namespace rocmtune::detect
