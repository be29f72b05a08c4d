// knobs/bootc_version.h: rpm's version order for the bootc and ostree minimums (rpm's own
// lib/rpmvercmp.c examples: numbers as numbers, '~' before the release, letters before numbers).
#include "boot/bootc_version.h"

#include <gtest/gtest.h>

namespace rocmtune::boot {
namespace {

TEST(BootcVersionTest, RpmVersionOrderAroundTheMinimums) {
  EXPECT_TRUE(RpmVersionAtLeast("1.15.2", "1.15.2"));
  EXPECT_TRUE(RpmVersionAtLeast("1.15.10", "1.15.2"));
  EXPECT_TRUE(RpmVersionAtLeast("1.16.0", "1.15.2"));
  EXPECT_TRUE(RpmVersionAtLeast("2.0", "1.15.2"));
  EXPECT_TRUE(RpmVersionAtLeast("1.15.2.1", "1.15.2"));
  EXPECT_FALSE(RpmVersionAtLeast("1.15.1", "1.15.2"));
  EXPECT_FALSE(RpmVersionAtLeast("1.15", "1.15.2"));
  EXPECT_FALSE(RpmVersionAtLeast("1.9.9", "1.15.2"));
  EXPECT_FALSE(RpmVersionAtLeast("1.15.2~rc1", "1.15.2"));
  EXPECT_TRUE(RpmVersionAtLeast("2026.1", "2026.1"));
  EXPECT_TRUE(RpmVersionAtLeast("2026.04", "2026.1"));
  EXPECT_FALSE(RpmVersionAtLeast("2025.7", "2026.1"));
  EXPECT_FALSE(RpmVersionAtLeast("2026.1~pre", "2026.1"));
  EXPECT_FALSE(RpmVersionAtLeast("", "2026.1"));
  EXPECT_FALSE(RpmVersionAtLeast("2026a", "2026.1"));  // rpm: "a" < "1"
}

}  // namespace
}  // namespace rocmtune::boot
