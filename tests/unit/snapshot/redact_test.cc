#include "snapshot/redact.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace rocmtune::snapshot
