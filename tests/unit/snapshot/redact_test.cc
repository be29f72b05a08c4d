#include "snapshot/redact.h"

#include <gtest/gtest.h>

#include "snapshot/redact_cmdline.h"

namespace rocmtune::snapshot {
namespace {

TEST(RedactTest, MacAddressesWithEitherSeparatorBecomeZeros) {
  EXPECT_EQ(RedactMacs("hw aa:BB:cc:dd:ee:0f up"), "hw 00:00:00:00:00:00 up");
  // Longer runs too: BOOTIF's hardware type before the MAC, InfiniBand's 20-byte addresses.
  EXPECT_EQ(RedactMacs("BOOTIF=01-aa-bb-cc-dd-ee-ff"), "BOOTIF=00-00-00-00-00-00-00");
  EXPECT_EQ(RedactMacs("x 80:00:00:48:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:12:34:56 y"),
            "x 00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00 y");
  // PCI addresses, times, five pairs and hex words are not hardware addresses.
  EXPECT_EQ(RedactMacs("0000:03:00.0 12:34:56 aa:bb:cc:dd:ee 1aa:bb:cc:dd:ee:ff"),
            "0000:03:00.0 12:34:56 aa:bb:cc:dd:ee 1aa:bb:cc:dd:ee:ff");
  // A word that starts with hex letters after the address ends it there: the address goes, the
  // word stays (and a host name there is taken out later).
  EXPECT_EQ(RedactMacs("ab:cc:dd:ee:bb:cc:debian aa:bb:cc:dd:ee:deadbeef"),
            "00:00:00:00:00:00:debian aa:bb:cc:dd:ee:deadbeef");
  const Redactor redactor(std::vector<std::string>{"debian"});
  EXPECT_EQ(redactor.Redact("etc/fstab", "ab:cc:dd:ee:bb:cc:debian\n"), "00:00:00:00:00:00:redacted\n");
}

TEST(RedactTest, HomePathsLoseTheUserName) {
  EXPECT_EQ(RedactHomes("init=/home/alice/init x=/var/home/bob.smith"),
            "init=/home/redacted/init x=/var/home/redacted");
  EXPECT_EQ(RedactHomes("HIP_PATH=\"/home/alice\""), "HIP_PATH=\"/home/redacted\"");
  EXPECT_EQ(RedactHomes("/home/ alone"), "/home/ alone");
}

TEST(RedactTest, HostNameOnlyAsAWholeWord) {
  EXPECT_EQ(RedactWord("ip=::gw:mask:node1:eth0 node10 xnode1", "node1"), "ip=::gw:mask:redacted:eth0 node10 xnode1");
}

TEST(RedactTest, RedactorKeepsOsReleaseAndSysfsWhenTheHostIsNamedAfterTheDistribution) {
  Redactor r({"debian.example.org", "debian"});
  EXPECT_EQ(r.Redact("etc/os-release", "ID=debian\n"), "ID=debian\n");
  EXPECT_EQ(r.Redact("proc/cmdline", "hostname=debian.example.org x=debian\n"), "hostname=redacted x=redacted\n");
  EXPECT_EQ(r.Redact("etc/hostname", "debian\n"), "redacted\n");
  EXPECT_EQ(r.Redact("proc/sys/kernel/hostname", "anything\n"), "redacted\n");
  // "localhost" names no one.
  Redactor local({"localhost"});
  EXPECT_EQ(local.Redact("etc/hosts", "127.0.0.1 localhost\n"), "127.0.0.1 localhost\n");
}

TEST(RedactTest, NetworkHardwareAddressesAreNeverCopied) {
  EXPECT_FALSE(Redactor::MayCopy("sys/class/net/eno1/address"));
  EXPECT_FALSE(Redactor::MayCopy("sys/devices/pci0000:00/0000:05:00.0/net/eno1/address"));
  EXPECT_FALSE(Redactor::MayCopy("sys/devices/pci0000:00/0000:05:00.0/net/wlan0/phy80211/macaddress"));
  EXPECT_TRUE(Redactor::MayCopy("sys/devices/pci0000:00/0000:03:00.0/vendor"));
  EXPECT_TRUE(Redactor::MayCopy("etc/modprobe.d/amdgpu.conf"));
}

// Private kernel parameters keep their name, lose their value, wherever the text
// is (a command line, a shell assignment, a JSON string with escapes); others are untouched.
TEST(RedactTest, PrivateKernelParametersLoseTheirValue) {
  EXPECT_EQ(RedactKernelTokens("ro ip=10.0.0.2::10.0.0.1:255.255.255.0:h:eno1:none quiet"), "ro ip=redacted quiet");
  EXPECT_EQ(RedactKernelTokens("rd.luks.uuid=luks-1234 rd.luks.name=abcd=root cryptdevice=UUID=ab:root"),
            "rd.luks.uuid=redacted rd.luks.name=redacted cryptdevice=redacted");
  EXPECT_EQ(RedactKernelTokens("rd.iscsi.initiator=iqn.2024:x rd.iscsi.param=a nfsroot=1.2.3.4:/x hostname=h"),
            "rd.iscsi.initiator=redacted rd.iscsi.param=redacted nfsroot=redacted hostname=redacted");
  // root= and resume= keep a device path and the kind of an identifier.
  EXPECT_EQ(RedactKernelTokens("root=UUID=4398-68dc resume=PARTUUID=cafe root=/dev/nvme0n1p2 resume=LABEL=swap"),
            "root=UUID=redacted resume=PARTUUID=redacted root=/dev/nvme0n1p2 resume=LABEL=redacted");
  EXPECT_EQ(RedactKernelTokens("resume=/dev/disk/by-uuid/cafe-01 x /dev/disk/by-id/nvme-Samsung_S4EW123-part2\n"),
            "resume=/dev/disk/by-uuid/redacted x /dev/disk/by-id/redacted\n");
  EXPECT_EQ(RedactKernelTokens("GRUB_CMDLINE_LINUX=\"quiet ip=dhcp\"\n"), "GRUB_CMDLINE_LINUX=\"quiet ip=redacted\"\n");
  EXPECT_EQ(RedactKernelTokens(R"({"content":"ip=1.2.3.4\nGRUB=\"hostname=h ro\""})"),
            R"({"content":"ip=redacted\nGRUB=\"hostname=redacted ro\""})");
  EXPECT_EQ(RedactKernelTokens("ip=\"1.2.3.4 x\" quiet"), "ip=redacted quiet");
  // Not a token start, or not a private name: kept, and so is what rocmtune reads.
  EXPECT_EQ(RedactKernelTokens("xip=1 skip=2 amdgpu.ppfeaturemask=0xfff7bfff iommu=pt amd_iommu=on ip"),
            "xip=1 skip=2 amdgpu.ppfeaturemask=0xfff7bfff iommu=pt amd_iommu=on ip");
}

TEST(RedactTest, UserNamesAreTakenOutAsWholeWordsButNotCommonAccountNames) {
  Redactor r({"box"}, {"alice", "ubuntu", "jo", "rocm"});
  EXPECT_EQ(r.Redact("etc/modprobe.d/a.conf", "# set by alice@box; alicex ubuntu jo /opt/rocm\n"),
            "# set by redacted@redacted; alicex ubuntu jo /opt/rocm\n");
  EXPECT_EQ(r.Redact("sys/devices/x/product_name", "alice\n"), "alice\n");
}

}  // namespace
}  // namespace rocmtune::snapshot
