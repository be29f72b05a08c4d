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

namespace rocmtune::text {
namespace {

TEST(EscapeControlTest, EscapesTerminalSequencesAndKeepsPrintableUtf8) {
  // Seen in a /etc/default/grub comment: set the window title, then clear the screen.
  EXPECT_EQ(EscapeControl("quiet\x1b]0;owned\x07\x1b[2J splash"), "quiet\\x1b]0;owned\\x07\\x1b[2J splash");
  EXPECT_EQ(EscapeControl("a\x7f"
                          "b"),
            "a\\x7fb");
  EXPECT_EQ(EscapeControl("GRUB \xe2\x80\x93 5 \xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80"),
            "GRUB \xe2\x80\x93 5 \xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80");
  EXPECT_EQ(EscapeControl("line\r\n\tx"), "line\\x0d\\x0a\\x09x");
  EXPECT_EQ(EscapeControl("line\r\n\tx", true), "line\\x0d\n\tx");
  EXPECT_EQ(EscapeControl(std::string("nul\0!", 5)), "nul\\x00!");
}

// A bidirectional override in a comment of /etc/modprobe.d reorders what the terminal shows: every
// embedding, override and isolate is escaped; the code points beside them (U+2029, U+202F, U+2065,
// U+206A) and the RIGHT-TO-LEFT MARK U+200F, which reorder nothing after them, stay.
TEST(EscapeControlTest, EscapesBidirectionalOverridesAndIsolates) {
  EXPECT_EQ(EscapeControl("options amdgpu noretry=0 \xe2\x80\xae# 1=yrteron\xe2\x80\xac"),
            "options amdgpu noretry=0 \\xe2\\x80\\xae# 1=yrteron\\xe2\\x80\\xac");
  for (const char* c : {"\xe2\x80\xaa", "\xe2\x80\xab", "\xe2\x80\xac", "\xe2\x80\xad", "\xe2\x80\xae", "\xe2\x81\xa6",
                        "\xe2\x81\xa7", "\xe2\x81\xa8", "\xe2\x81\xa9"})
    EXPECT_EQ(EscapeControl(std::string("a") + c + "b").find('\xe2'), std::string::npos) << "U+" << c;
  for (const char* c : {"\xe2\x80\xa9", "\xe2\x80\xaf", "\xe2\x81\xa5", "\xe2\x81\xaa", "\xe2\x80\x8f"})
    EXPECT_EQ(EscapeControl(std::string("a") + c + "b"), std::string("a") + c + "b");
}

TEST(EscapeControlTest, EscapesC1ControlsAndInvalidUtf8ByteByByte) {
  EXPECT_EQ(EscapeControl("\xc2\x9b"
                          "2J"),
            "\\xc2\\x9b2J");                         // U+009B CSI
  EXPECT_EQ(EscapeControl("\xc2\xa0"), "\xc2\xa0");  // U+00A0 is printable
  EXPECT_EQ(EscapeControl("\x9b"
                          "2J"),
            "\\x9b2J");                                                  // a bare 8-bit CSI
  EXPECT_EQ(EscapeControl("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(EscapeControl("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a UTF-16 surrogate
  EXPECT_EQ(EscapeControl("end\xe2\x80"), "end\\xe2\\x80");              // cut short
  EXPECT_EQ(EscapeControl("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
}

TEST(EscapeControlTest, IncompleteTailIsOnlyAValidStartOfASequence) {
  EXPECT_EQ(IncompleteUtf8Tail("abc"), 0u);
  EXPECT_EQ(IncompleteUtf8Tail("ab\xe2"), 1u);
  EXPECT_EQ(IncompleteUtf8Tail("ab\xe2\x80"), 2u);
  EXPECT_EQ(IncompleteUtf8Tail("ab\xe2\x80\x93"), 0u);
  EXPECT_EQ(IncompleteUtf8Tail("\xf0\x9f\x98"), 3u);
  EXPECT_EQ(IncompleteUtf8Tail("ab\xe0\x80"), 0u) << "overlong: it can never complete";
  EXPECT_EQ(IncompleteUtf8Tail("ab\x80"), 0u);
  EXPECT_EQ(IncompleteUtf8Tail(""), 0u);
}

}  // namespace
}  // namespace rocmtune::text

namespace rocmtune::text {
namespace {

TEST(SplitFieldsTest, KeepsEmptyFieldsAndTheLastOne) {
  EXPECT_EQ(SplitFields("alice:x:1000:1000::/home/alice:/bin/bash", ':').size(), 7u);
  EXPECT_EQ(SplitFields("a::b", ':'), (std::vector<std::string_view>{"a", "", "b"}));
  EXPECT_EQ(SplitFields("", ','), (std::vector<std::string_view>{""}));
  EXPECT_EQ(SplitFields("render:x:107:", ':').back(), "");
}

}  // namespace
}  // namespace rocmtune::text
