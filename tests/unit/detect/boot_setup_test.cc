#include "detect/boot_setup.h"

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
  EXPECT_EQ(b.initramfs, "initramfs-tools");
}

TEST(BootSetupTest, UpstreamGrubWithoutDropIns) {
  TestTree t;
  t.Write("etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"loglevel=3 quiet\"\n");
  t.Write("etc/mkinitcpio.conf", "MODULES=(amdgpu)\n");
  BootSetup b = Detect(t);
  EXPECT_EQ(b.kind, BootKind::kGrub);
  EXPECT_EQ(b.initramfs, "mkinitcpio");
}

TEST(BootSetupTest, FedoraBls) {
  TestTree t;
  t.Write("etc/default/grub", "GRUB_ENABLE_BLSCFG=true\n");
  t.Write("boot/loader/entries/abc-6.11.4-301.fc41.x86_64.conf", "title Fedora\noptions root=UUID=x ro\n");
  t.Write("etc/dracut.conf", "");
  BootSetup b = Detect(t);
  EXPECT_EQ(b.kind, BootKind::kGrubBls);
  EXPECT_EQ(b.initramfs, "dracut");
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

TEST(BootSetupTest, NoEvidenceIsUnknown) {
  TestTree t;
  t.Write("etc/os-release", "ID=debian\n");  // os-release alone decides nothing
  BootSetup b = Detect(t);
  EXPECT_FALSE(b.kind);
  EXPECT_FALSE(b.initramfs);
}

// The names are the JSON's "boot" values: each kind has one, and it parses back to the kind.
TEST(BootSetupTest, KindNamesRoundTrip) {
  for (BootKind kind : {BootKind::kGrubDebian, BootKind::kGrub, BootKind::kGrubBls, BootKind::kSystemdBoot})
    EXPECT_EQ(ParseBootKind(BootKindName(kind)), kind) << BootKindName(kind);
  EXPECT_EQ(BootKindName(BootKind::kGrubDebian), "grub-debian");
  EXPECT_EQ(BootKindName(BootKind::kSystemdBoot), "systemd-boot");
  EXPECT_FALSE(ParseBootKind("lilo"));
}

}  // namespace
}  // namespace rocmtune::detect
