// knobs/boot_image.h: which image the next boot loads for a kernel (Debian, dracut, BLS and
// kernel-install entries, mkinitcpio's preset) and whether it carries rocmtune's module options,
// on images made with cpio and the compressors (tests/support/initrd_images.h).
#include "boot/boot_image.h"

#include <gtest/gtest.h>

#include "initrd_images.h"
#include "plan/owned_paths.h"
#include "test_tree.h"

namespace rocmtune::boot {
namespace {

constexpr const char* kBootImageKernel = "6.1.0-28-amd64";

class BootImageTest : public ::testing::Test {
 protected:
  BootImages Find(const std::string& version = kBootImageKernel) {
    auto root = sys::Root::Open(tree_.path());
    EXPECT_TRUE(root);
    return FindBootImages(*root, version);
  }
  std::optional<BootImageCheck> Check() {
    auto root = sys::Root::Open(tree_.path());
    EXPECT_TRUE(root);
    detect::Inventory inventory;
    inventory.system.kernel = kBootImageKernel;
    inventory.system.boot.initramfs = detect::InitramfsKind::kInitramfsTools;
    return CheckBootImage(*root, inventory);
  }
  // An image with amdgpu for the kernel (unless `amdgpu` is false) and `options` as its copy of
  // rocmtune's file (none when empty). "" or the reason to skip.
  std::string Image(const std::string& rel, const std::string& options, bool amdgpu = true,
                    const std::string& compress = "zstd") {
    testing::InitrdSpec spec;
    spec.compress = compress;
    spec.early_microcode = true;
    spec.files["init"] = "#!/bin/sh\n";
    if (amdgpu) spec.files[testing::AmdgpuModulePath(kBootImageKernel)] = "module";
    spec.files[std::string("usr/lib/modules/") + kBootImageKernel + "/kernel/fs/ext4/ext4.ko.xz"] = "ext4";
    if (!options.empty()) spec.files[std::string(plan::kModprobeDropIn)] = options;
    return testing::MakeInitrdImage(tree_.Path(rel), spec);
  }
  testing::TestTree tree_;
};

TEST_F(BootImageTest, FindsEachGeneratorsImageOfTheKernel) {
  EXPECT_TRUE(Find().paths.empty());
  tree_.Write("boot/initramfs-6.1.0-28-amd64.img", "x");  // dracut's name
  EXPECT_EQ(Find().paths, std::vector<std::string>{"boot/initramfs-6.1.0-28-amd64.img"});
  tree_.Write("boot/initrd.img-6.1.0-28-amd64", "x");  // initramfs-tools' name goes first
  EXPECT_EQ(Find().paths, std::vector<std::string>{"boot/initrd.img-6.1.0-28-amd64"});
  tree_.Write("boot/initrd.img-6.1.0-27-amd64", "x");
  EXPECT_EQ(Find("6.1.0-27-amd64").paths, std::vector<std::string>{"boot/initrd.img-6.1.0-27-amd64"});
  EXPECT_TRUE(Find("../../etc/passwd").paths.empty());
  EXPECT_TRUE(Find("").paths.empty());
}

TEST_F(BootImageTest, ABootLoaderEntryNamesItsImagesRelativeToItsPartition) {
  tree_.Write("boot/initrd.img-6.1.0-28-amd64", "x");
  // kernel-install's entry on the ESP: microcode first, then the main image, relative to the ESP.
  tree_.Write("efi/loader/entries/abc-6.1.0-28-amd64.conf",
              "title Debian\nversion 6.1.0-28-amd64\nlinux /abc/6.1.0-28-amd64/linux\n"
              "initrd /abc/6.1.0-28-amd64/microcode\ninitrd /abc/6.1.0-28-amd64/initrd\n");
  tree_.Write("efi/abc/6.1.0-28-amd64/microcode", "u");
  tree_.Write("efi/abc/6.1.0-28-amd64/initrd", "i");
  tree_.Write("efi/loader/entries/abc-6.1.0-27-amd64.conf", "version 6.1.0-27-amd64\ninitrd /abc/old/initrd\n");
  BootImages found = Find();
  EXPECT_EQ(found.paths,
            (std::vector<std::string>{"efi/abc/6.1.0-28-amd64/microcode", "efi/abc/6.1.0-28-amd64/initrd"}));
  EXPECT_NE(found.evidence.find("efi/loader/entries/abc-6.1.0-28-amd64.conf"), std::string::npos);
  // Fedora's BLS entry in /boot with /boot its own partition: "/initramfs-V.img" is /boot's.
  testing::TestTree fedora;
  fedora.Write("boot/loader/entries/m-6.11.4-301.fc41.x86_64.conf",
               "version 6.11.4-301.fc41.x86_64\ninitrd /initramfs-6.11.4-301.fc41.x86_64.img $tuned_initrd\n");
  fedora.Write("boot/initramfs-6.11.4-301.fc41.x86_64.img", "x");
  auto root = sys::Root::Open(fedora.path());
  ASSERT_TRUE(root);
  EXPECT_EQ(FindBootImages(*root, "6.11.4-301.fc41.x86_64").paths,
            std::vector<std::string>{"boot/initramfs-6.11.4-301.fc41.x86_64.img"});
}

TEST_F(BootImageTest, MkinitcpioPresetOfTheKernelsPackage) {
  tree_.Write("usr/lib/modules/6.1.0-28-amd64/pkgbase", "linux-lts\n");
  tree_.Write("boot/initramfs-linux-lts.img", "x");
  EXPECT_EQ(Find().paths, std::vector<std::string>{"boot/initramfs-linux-lts.img"});
  tree_.Write("etc/mkinitcpio.d/linux-lts.preset",
              "ALL_kver=\"/boot/vmlinuz-linux-lts\"\nPRESETS=('default')\ndefault_image=\"/boot/lts.img\"\n");
  tree_.Write("boot/lts.img", "x");
  BootImages found = Find();
  EXPECT_EQ(found.paths, std::vector<std::string>{"boot/lts.img"});
  EXPECT_NE(found.evidence.find("linux-lts.preset"), std::string::npos);
}

TEST_F(BootImageTest, NothingToCheckWithoutRocmtunesModuleOptions) {
  EXPECT_FALSE(Check());
  tree_.Write(plan::kModprobeDropIn, "# rocmtune\n\n");
  EXPECT_FALSE(Check());
}

TEST_F(BootImageTest, SaysWhatTheImageCarries) {
  tree_.Write(plan::kModprobeDropIn, "# written by rocmtune\noptions amdgpu noretry=0\n");
  auto none = Check();
  ASSERT_TRUE(none);
  EXPECT_EQ(none->state, ImageState::kUnknown);
  EXPECT_NE(none->message.find("no initramfs image of kernel 6.1.0-28-amd64"), std::string::npos) << none->message;

  const std::string rel = "boot/initrd.img-6.1.0-28-amd64";
  std::string why = Image(rel, "");
  if (!why.empty()) GTEST_SKIP() << why;
  auto lacks = Check();
  ASSERT_TRUE(lacks);
  EXPECT_EQ(lacks->state, ImageState::kLacks);
  EXPECT_EQ(lacks->configured, "options amdgpu noretry=0");
  EXPECT_FALSE(lacks->carried);
  EXPECT_NE(lacks->message.find("update-initramfs -u -k 6.1.0-28-amd64"), std::string::npos) << lacks->message;

  ASSERT_EQ(Image(rel, "# written by rocmtune\noptions   amdgpu  noretry=0\n"), "");  // spacing does not matter
  EXPECT_EQ(Check()->state, ImageState::kCarries);

  ASSERT_EQ(Image(rel, "options amdgpu noretry=1\n"), "");
  auto differs = Check();
  EXPECT_EQ(differs->state, ImageState::kDiffers);
  EXPECT_EQ(differs->carried, "options amdgpu noretry=1");

  ASSERT_EQ(Image(rel, "", false), "");
  auto root_fs = Check();
  EXPECT_EQ(root_fs->state, ImageState::kNoAmdgpu);
  EXPECT_NE(root_fs->message.find("does not carry amdgpu"), std::string::npos);

  // Another kernel's amdgpu is not this kernel's.
  testing::InitrdSpec other;
  other.files[testing::AmdgpuModulePath("6.1.0-27-amd64")] = "module";
  ASSERT_EQ(testing::MakeInitrdImage(tree_.Path(rel), other), "");
  EXPECT_EQ(Check()->state, ImageState::kNoAmdgpu);

  tree_.Write(rel, "not an image");
  auto corrupt = Check();
  EXPECT_EQ(corrupt->state, ImageState::kUnknown);
  EXPECT_NE(corrupt->message.find(rel), std::string::npos) << corrupt->message;
}

}  // namespace
}  // namespace rocmtune::boot
