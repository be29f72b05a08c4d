#include "detect/pci_address.h"

#include <gtest/gtest.h>

namespace rocmtune::detect {
namespace {

TEST(PciAddressTest, ParsesSlotNames) {
  auto a = ParsePciAddress("0000:c1:00.0");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->bus, 0xc1);
  EXPECT_EQ(a->ToString(), "0000:c1:00.0");
  EXPECT_EQ(ParsePciAddress("0001:03:1f.7")->ToString(), "0001:03:1f.7");
}

TEST(PciAddressTest, RejectsMalformed) {
  for (const char* bad : {"", "0000:03:00", "0000:03:00.8", "0000:03:20.0", "zzzz:03:00.0", "0000:03:00.0 ", "03:00.0"})
    EXPECT_FALSE(ParsePciAddress(bad)) << bad;
}

TEST(PciAddressTest, DecodesKfdLocationId) {
  // phoenix capture: location_id 25600 = 0x6400 -> bus 0x64, device 0, function 0
  EXPECT_EQ(FromKfdLocation(0, 25600).ToString(), "0000:64:00.0");
  // MI300X CPX partition 7: 1287 = 0x507 -> function bits carry the partition
  EXPECT_EQ(FromKfdLocation(0, 1287).ToString(), "0000:05:00.7");
  EXPECT_EQ(FromKfdLocation(2, 0x0318).ToString(), "0002:03:03.0");
}

}  // namespace
}  // namespace rocmtune::detect
