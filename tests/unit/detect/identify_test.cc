#include "detect/identify.h"

#include <gtest/gtest.h>

namespace rocmtune::detect {
namespace {

using knowledge::Family;

TEST(IdentifyTest, KfdVersionWins) {
  RawIds raw;
  raw.device_id = 0x74a1;
  raw.gfx_target_version = 90402;
  raw.gc_ip = "9.4.3";
  Identity id = Identify(raw, nullptr);
  EXPECT_EQ(id.gfx_target, "gfx942");  // not "gfx943" from concatenating the GC IP
  EXPECT_EQ(id.family, Family::kCdna3);
  EXPECT_EQ(id.apu, false);  // 74A1 is MI300X: the PCI row knows what the ISA cannot
  EXPECT_EQ(id.source, "kfd");
}

TEST(IdentifyTest, IpDiscoveryWhenNoKfd) {
  RawIds raw;
  raw.device_id = 0x747e;
  raw.gc_ip = "11.0.3";
  Identity id = Identify(raw, nullptr);
  EXPECT_EQ(id.gfx_target, "gfx1101");
  EXPECT_EQ(id.gc_ip, "11.0.3");
  EXPECT_EQ(id.family, Family::kRdna3);
  EXPECT_EQ(id.source, "ip_discovery");
}

TEST(IdentifyTest, PciTableIsTheLastResort) {
  RawIds raw;
  raw.device_id = 0x731f;
  Identity id = Identify(raw, nullptr);
  EXPECT_EQ(id.gfx_target, "gfx1010");
  EXPECT_EQ(id.gc_ip, "10.1.10");
  EXPECT_EQ(id.family, Family::kRdna1);
  EXPECT_EQ(id.apu, false);
  EXPECT_EQ(id.source, "pci_table");
}

TEST(IdentifyTest, Gfx803FamilyComesFromTheDevice) {
  RawIds polaris;
  polaris.device_id = 0x67df;
  EXPECT_EQ(Identify(polaris, nullptr).family, Family::kGcn4);
  RawIds fiji;
  fiji.device_id = 0x7300;
  fiji.gfx_target_version = 80003;
  EXPECT_EQ(Identify(fiji, nullptr).family, Family::kGcn3);
}

TEST(IdentifyTest, UnknownStaysUnknown) {
  RawIds raw;
  raw.device_id = 0x0bad;
  Identity id = Identify(raw, nullptr);
  EXPECT_FALSE(id.gfx_target);
  EXPECT_FALSE(id.family);
  EXPECT_FALSE(id.apu);
  EXPECT_FALSE(id.gc_ip);
  EXPECT_EQ(id.source, "none");
  EXPECT_EQ(id.marketing_name, "AMD Radeon Graphics (1002:0bad)");
}

TEST(IdentifyTest, AmbiguousGcIpIsNotGuessed) {
  RawIds raw;
  raw.gc_ip = "9.4.3";  // gfx940, gfx941 or gfx942 depending on silicon revision
  EXPECT_FALSE(Identify(raw, nullptr).gfx_target);
}

TEST(IdentifyTest, KfdVersionOutsideTheTableStillNamesTheIsa) {
  RawIds raw;
  raw.gfx_target_version = 130001;  // a future part
  Identity id = Identify(raw, nullptr);
  EXPECT_EQ(id.gfx_target, "gfx1301");
  EXPECT_FALSE(id.family);
}

TEST(MarketingNameTest, BundledThenSystemThenFallback) {
  auto system = knowledge::AmdgpuIds::Parse("1.0.0\nBEEF,\t01,\tSystem Only Card\n", "sys");
  ASSERT_TRUE(system);
  RawIds raw;
  raw.device_id = 0x744c;
  raw.revision = 0xc8;
  EXPECT_EQ(MarketingName(raw, &*system), "AMD Radeon RX 7900 XTX");
  raw.device_id = 0xbeef;
  raw.revision = 0x01;
  EXPECT_EQ(MarketingName(raw, &*system), "System Only Card");
  EXPECT_EQ(MarketingName(raw, nullptr), "AMD Radeon Graphics (1002:beef)");
  raw.product_name = "Board Name From Sysfs";
  EXPECT_EQ(MarketingName(raw, nullptr), "Board Name From Sysfs");
}

TEST(MarketingNameTest, UnknownRevisionNamesOnlyWhenCertain) {
  RawIds raw;
  raw.device_id = 0x731f;  // many revisions, many names: only the product line is certain
  EXPECT_EQ(MarketingName(raw, nullptr), "AMD Radeon RX 5600 XT / 5700 / 5700 XT (Navi10)");
  raw.device_id = 0x0bad;
  EXPECT_EQ(MarketingName(raw, nullptr), "AMD Radeon Graphics (1002:0bad)");
}

}  // namespace
}  // namespace rocmtune::detect
