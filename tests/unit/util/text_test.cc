#include "util/text.h"

#include <gtest/gtest.h>

namespace rocmtune::text {
namespace {

TEST(TextTest, CleanDropsNulPaddingAndTrailingSpace) {
  std::string raw = "0xc1 \n";
  raw.append(4096, '\0');
  EXPECT_EQ(Clean(raw), "0xc1");
  EXPECT_EQ(Clean(std::string("a\0b", 3)), "ab");
  EXPECT_EQ(Clean("  \t\n"), "");
}

TEST(TextTest, SplitLinesHandlesCrlfAndMissingFinalNewline) {
  auto lines = SplitLines("a\r\nb\nc");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "a");
  EXPECT_EQ(lines[1], "b");
  EXPECT_EQ(lines[2], "c");
  EXPECT_TRUE(SplitLines("").empty());
}

TEST(TextTest, KeySpaceValueTakesFirstTwoTokensAndLastDuplicate) {
  auto kv = ParseKeySpaceValue("simd_count 24\nlonely\ngfx_target_version 110003  \nsimd_count 12\n");
  EXPECT_EQ(kv.at("simd_count"), "12");
  EXPECT_EQ(kv.at("gfx_target_version"), "110003");
  EXPECT_EQ(kv.count("lonely"), 0u);
}

TEST(TextTest, KeyEqualsValueKeepsEqualsInValue) {
  auto kv = ParseKeyEqualsValue("DRIVER=amdgpu\nMODALIAS=pci:v00001002=x\n=nokey\nnoequals\n");
  EXPECT_EQ(kv.at("DRIVER"), "amdgpu");
  EXPECT_EQ(kv.at("MODALIAS"), "pci:v00001002=x");
  EXPECT_EQ(kv.size(), 2u);
}

TEST(TextTest, NumbersAreStrict) {
  EXPECT_EQ(ParseU64("42"), 42u);
  EXPECT_EQ(ParseU64(" 42\n"), 42u);
  EXPECT_FALSE(ParseU64("42abc"));
  EXPECT_FALSE(ParseU64("-1"));
  EXPECT_FALSE(ParseU64("99999999999999999999999"));
  EXPECT_FALSE(ParseU64(""));
  EXPECT_EQ(ParseI64("-1"), -1);
  EXPECT_FALSE(ParseI64("1.5"));
  EXPECT_EQ(ParseHex("0xC1"), 0xc1u);
  EXPECT_EQ(ParseHex("731F"), 0x731fu);
  EXPECT_FALSE(ParseHex("0x"));
  EXPECT_FALSE(ParseHex("0xzz"));
}

}  // namespace
}  // namespace rocmtune::text
