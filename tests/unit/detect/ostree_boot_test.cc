// ostree-booted systems (detect/ostree_boot.h): each kind from its evidence, one step beside each
// (no /run/ostree-booted, an origin with rpm-ostree's groups, bootc without a container origin),
// and .origin files as GKeyFile writes them and as hostile input.
#include "detect/ostree_boot.h"

#include <unistd.h>

#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "detect/boot_setup.h"
#include "test_tree.h"

namespace rocmtune::detect::ostree_test {
namespace {

using testing::TestTree;

constexpr std::string_view kDeploy = "sysroot/ostree/deploy/fedora/deploy/e7641ec2.0";

// A Fedora tree as the last release of grub-bls detection saw it (GRUB with BLS, dracut), made
// ostree-booted the way ostree lays it out: /ostree -> sysroot/ostree, ostree/boot.1 -> boot.1.1,
// boot.1.1/fedora/BOOTCSUM/0 -> the deployment, /boot/loader -> loader.1.
void OstreeTree(const TestTree& t, std::string_view origin) {
  t.Write("etc/default/grub", "GRUB_ENABLE_BLSCFG=true\n");
  t.Write("etc/dracut.conf", "");
  t.Mkdir("boot/grub2");
  t.Write("boot/loader.1/entries/ostree-1-fedora.conf", "version 1\noptions rw ostree=/ostree/boot.1/fedora/4fd0/0\n");
  t.Symlink("boot/loader", "loader.1");
  t.Write(std::string(kDeploy) + "/usr/lib/os-release", "ID=fedora\n");
  t.Write(std::string(kDeploy) + ".origin", origin);
  t.Symlink("sysroot/ostree/boot.1", "boot.1.1");
  t.Mkdir("sysroot/ostree/boot.1.1/fedora/4fd0");
  t.Symlink("sysroot/ostree/boot.1.1/fedora/4fd0/0", "../../../deploy/fedora/deploy/e7641ec2.0");
  t.Symlink("ostree", "sysroot/ostree");
  t.Write("proc/cmdline", "BOOT_IMAGE=(hd0,gpt2)/ostree/x/vmlinuz rw ostree=/ostree/boot.1/fedora/4fd0/0\n");
  t.Write("run/ostree-booted", "");
}

BootSetup DetectIn(const TestTree& t) {
  auto root = sys::Root::Open(t.path());
  EXPECT_TRUE(root);
  return DetectBootSetup(*root);
}

TEST(OstreeBootTest, SilverblueIsRpmOstreeNotGrubBls) {
  TestTree t;
  OstreeTree(t, "[origin]\nrefspec=fedora:fedora/41/x86_64/silverblue\n");
  t.Write("usr/bin/rpm-ostree", "");
  BootSetup b = DetectIn(t);
  EXPECT_EQ(b.kind, BootKind::kRpmOstree);
  EXPECT_EQ(BootKindName(*b.kind), "rpm-ostree");
  EXPECT_EQ(b.initramfs, InitramfsKind::kRpmOstreeInitramfsEtc);  // not dracut: the image's initramfs is built with it
  EXPECT_EQ(b.evidence,
            (std::vector<std::string>{"run/ostree-booted", "proc/cmdline", "ostree", "sysroot", "boot/loader",
                                      "sysroot/ostree/deploy/fedora/deploy/e7641ec2.0.origin", "usr/bin/rpm-ostree"}));
  auto root = sys::Root::Open(t.path());
  EXPECT_EQ(BootedDeployment(*root), "sysroot/ostree/deploy/fedora/deploy/e7641ec2.0");
}

TEST(OstreeBootTest, WithoutTheBootedFlagItIsTheFilesItHas) {
  TestTree t;
  OstreeTree(t, "[origin]\nrefspec=fedora/41/x86_64/silverblue\n");
  t.Write("usr/bin/rpm-ostree", "");
  ::unlink(t.Path("run/ostree-booted").c_str());
  EXPECT_EQ(DetectIn(t).kind, BootKind::kGrubBls);
}

TEST(OstreeBootTest, BootcNeedsAContainerOriginWithoutRpmOstreeChanges) {
  TestTree t;
  OstreeTree(t, "[origin]\ncontainer-image-reference=ostree-unverified-registry:quay.io/fedora/fedora-bootc:41\n");
  t.Write("usr/bin/rpm-ostree", "");
  t.Write("usr/bin/bootc", "");
  BootSetup b = DetectIn(t);
  EXPECT_EQ(b.kind, BootKind::kBootc);
  EXPECT_EQ(BootKindName(*b.kind), "bootc");
  EXPECT_EQ(b.initramfs, std::nullopt);
  EXPECT_EQ(b.evidence.back(), "usr/bin/bootc");

  // Packages layered with rpm-ostree: bootc refuses to manage it (origin_has_rpmostree_stuff).
  t.Write(std::string(kDeploy) + ".origin",
          "[origin]\ncontainer-image-reference=ostree-image-signed:docker://ghcr.io/ublue-os/bazzite:stable\n"
          "[packages]\nrequested=htop;\n");
  EXPECT_EQ(DetectIn(t).kind, BootKind::kRpmOstree);
  // A refspec origin (Silverblue) with bootc installed is still rpm-ostree's.
  t.Write(std::string(kDeploy) + ".origin", "[origin]\nrefspec=fedora/41/x86_64/silverblue\n");
  EXPECT_EQ(DetectIn(t).kind, BootKind::kRpmOstree);
}

TEST(OstreeBootTest, OstreeWithoutEitherToolIsUnknownNotGrub) {
  TestTree t;
  OstreeTree(t, "[origin]\nrefspec=os/x86_64/stable\n");
  BootSetup b = DetectIn(t);
  EXPECT_EQ(b.kind, std::nullopt);
  EXPECT_EQ(b.evidence.front(), "run/ostree-booted");
  EXPECT_EQ(b.initramfs, std::nullopt);
  // Unknown with the reason (status's `boot_unknown`), not silently.
  EXPECT_NE(b.why_unknown.find("neither rpm-ostree nor bootc"), std::string::npos) << b.why_unknown;
}

TEST(OstreeBootTest, LinksOutOfTheRootOrInALoopResolveToNothing) {
  TestTree t;
  OstreeTree(t, "[origin]\nrefspec=x\n");
  t.Write("usr/bin/rpm-ostree", "");
  t.Write("proc/cmdline", "ostree=/ostree/../../../etc\n");
  auto root = sys::Root::Open(t.path());
  EXPECT_EQ(BootedDeployment(*root), std::nullopt);
  t.Write("proc/cmdline", "ostree=/ostree/loop\n");
  t.Symlink("sysroot/ostree/loop", "loop");
  EXPECT_EQ(BootedDeployment(*root), std::nullopt);
  t.Write("proc/cmdline", "ostree=/etc/passwd\n");
  EXPECT_EQ(BootedDeployment(*root), std::nullopt);
  // Still rpm-ostree (the booted flag and the tool), without an origin to read.
  BootSetup b = DetectIn(t);
  EXPECT_EQ(b.kind, BootKind::kRpmOstree);
  EXPECT_EQ(std::count(b.evidence.begin(), b.evidence.end(), "sysroot/ostree/deploy/fedora/deploy/e7641ec2.0.origin"),
            0);
}

TEST(OstreeOriginTest, ReadsWhatRpmOstreeAndBootcWrite) {
  // rpm-ostree rust/src/origin.rs's own test origin, with initramfs-etc.
  OstreeOrigin o = ParseOstreeOrigin(
      "[origin]\nrefspec=foo:bar/x86_64/baz\n\n[rpmostree]\ninitramfs-etc=/etc/cmdline.d/foobar.conf;"
      "/etc/modprobe.d/rocmtune.conf;\n");
  EXPECT_EQ(o.refspec, "foo:bar/x86_64/baz");
  EXPECT_EQ(o.container_image, std::nullopt);
  EXPECT_EQ(o.initramfs_etc, (std::vector<std::string>{"/etc/cmdline.d/foobar.conf", "/etc/modprobe.d/rocmtune.conf"}));
  EXPECT_TRUE(o.rpmostree_changes);

  OstreeOrigin b = ParseOstreeOrigin("[origin]\ncontainer-image-reference=ostree-unverified-registry:quay.io/x:1\n");
  EXPECT_EQ(b.container_image, "ostree-unverified-registry:quay.io/x:1");
  EXPECT_FALSE(b.rpmostree_changes);
  EXPECT_EQ(ParseOstreeOrigin("[origin]\nbaserefspec=fedora/33/x86_64/silverblue\n").refspec,
            "fedora/33/x86_64/silverblue");
  for (std::string_view group : {"packages", "overrides", "modules", "rpmostree"})
    EXPECT_TRUE(ParseOstreeOrigin(fmt::format("[origin]\nrefspec=a\n[{}]\nx=y\n", group)).rpmostree_changes) << group;
}

TEST(OstreeOriginTest, HostileOriginsGiveWhatIsReadableAndNoCrash) {
  OstreeOrigin empty = ParseOstreeOrigin("");
  EXPECT_EQ(empty.refspec, std::nullopt);
  EXPECT_FALSE(empty.rpmostree_changes);
  // A NUL byte ends what is read; a key outside its group is not that group's.
  OstreeOrigin nul = ParseOstreeOrigin(std::string("[origin]\nrefspec=a\n\0[packages]\nx=1\n", 35));
  EXPECT_EQ(nul.refspec, "a");
  EXPECT_FALSE(nul.rpmostree_changes);
  EXPECT_EQ(ParseOstreeOrigin("refspec=a\ncontainer-image-reference=b\n").container_image, std::nullopt);
  EXPECT_EQ(ParseOstreeOrigin("[origin]\nrefspec=\n").refspec, std::nullopt);
  EXPECT_EQ(ParseOstreeOrigin("[origin]\nrefspec=a  \n").refspec, "a");
  EXPECT_EQ(ParseOstreeOrigin("[rpmostree]\ninitramfs-etc=;;/etc/a;;\n").initramfs_etc,
            (std::vector<std::string>{"/etc/a"}));
  OstreeOrigin huge = ParseOstreeOrigin("[origin]\nrefspec=a\n" + std::string(1 << 20, '#') + "\n");
  EXPECT_EQ(huge.refspec, std::nullopt);  // past the bound: nothing of it is read
  // A line longer than inih reads at once is left out, not cut short into another value.
  OstreeOrigin long_line = ParseOstreeOrigin("[origin]\ncontainer-image-reference=" + std::string(300, 'x') +
                                             "\n[rpmostree]\ninitramfs-etc=/etc/a;\n");
  EXPECT_EQ(long_line.container_image, std::nullopt);
  EXPECT_EQ(long_line.initramfs_etc, (std::vector<std::string>{"/etc/a"}));
}

}  // namespace
}  // namespace rocmtune::detect::ostree_test
