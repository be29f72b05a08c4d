#include "knobs/cmdline_tokens.h"

#include <gtest/gtest.h>

namespace rocmtune::knobs {
namespace {

using Tokens = std::vector<std::string>;

TEST(CmdlineTokensTest, SplitsLikeTheKernel) {
  EXPECT_EQ(SplitCmdline("  BOOT_IMAGE=/vmlinuz ro\tquiet\n"), (Tokens{"BOOT_IMAGE=/vmlinuz", "ro", "quiet"}));
  // lib/cmdline.c next_arg(): whitespace inside double quotes does not split.
  EXPECT_EQ(SplitCmdline(R"(a foo="x y" "b c=d" e)"), (Tokens{"a", R"(foo="x y")", R"("b c=d")", "e"}));
  EXPECT_EQ(SplitCmdline(""), Tokens{});
  EXPECT_EQ(SplitCmdline(" \n "), Tokens{});
  EXPECT_EQ(JoinCmdline(Tokens{"a", "b=c"}), "a b=c");
}

TEST(CmdlineTokensTest, ValueIsTheLastOccurrenceBeforeDashDash) {
  Tokens t = SplitCmdline(R"(iommu=off quiet amd-iommu=on foo="a b" iommu=pt -- iommu=soft)");
  EXPECT_EQ(TokenValue(t, "iommu"), "pt");
  EXPECT_EQ(TokenValue(t, "quiet"), "");            // a flag
  EXPECT_EQ(TokenValue(t, "amd_iommu"), "on");      // '-' and '_' are one character in names
  EXPECT_EQ(TokenValue(t, "foo"), "a b");           // quotes removed as the kernel does
  EXPECT_EQ(TokenValue(t, "splash"), std::nullopt);
  EXPECT_EQ(TokenValue(SplitCmdline(R"("opt=x y")"), "opt"), "x y");
  EXPECT_EQ(TokenKey(R"("opt=x y")"), "opt");
}

TEST(CmdlineTokensTest, AddOrReplaceKeepsOtherTokensAndOrder) {
  Tokens t{"quiet", "iommu=off", "splash", "iommu=soft", "--", "single"};
  EXPECT_TRUE(AddOrReplaceToken(t, "iommu", "pt"));
  EXPECT_EQ(t, (Tokens{"quiet", "iommu=off", "splash", "iommu=pt", "--", "single"}));
  EXPECT_FALSE(AddOrReplaceToken(t, "iommu", "pt"));  // idempotent
  EXPECT_TRUE(AddOrReplaceToken(t, "amdgpu.noretry", "0"));
  EXPECT_EQ(t, (Tokens{"quiet", "iommu=off", "splash", "iommu=pt", "amdgpu.noretry=0", "--", "single"}));
  EXPECT_TRUE(AddOrReplaceToken(t, "nomodeset", std::nullopt));
  EXPECT_EQ(t[6], "nomodeset");
}

TEST(CmdlineTokensTest, RemoveOnlyMatchingTokensBeforeDashDash) {
  Tokens t{"iommu=off", "quiet", "iommu=pt", "amd_iommu=on", "--", "iommu=pt"};
  EXPECT_EQ(RemoveToken(t, "iommu", "pt"), 1u);
  EXPECT_EQ(t, (Tokens{"iommu=off", "quiet", "amd_iommu=on", "--", "iommu=pt"}));
  EXPECT_EQ(RemoveToken(t, "amd-iommu"), 1u);
  EXPECT_EQ(RemoveToken(t, "iommu"), 1u);
  EXPECT_EQ(t, (Tokens{"quiet", "--", "iommu=pt"}));
  EXPECT_EQ(RemoveToken(t, "iommu"), 0u);
}

TEST(CmdlineTokensTest, ValidationRefusesWhatTheShellOrGrubWouldInterpret) {
  EXPECT_TRUE(ValidateToken("iommu=pt"));
  EXPECT_TRUE(ValidateToken("amdgpu.ppfeaturemask=0xfff7bfff"));
  EXPECT_TRUE(ValidateToken("amdgpu.lockup_timeout=10000,10000"));
  EXPECT_TRUE(ValidateToken("nomodeset"));
  EXPECT_TRUE(ValidateToken("console="));
  for (const char* bad : {"", "=x", "io mmu=pt", "iommu/x=1", "a\"b=1"}) {
    auto r = ValidateToken(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  }
  for (const char* bad : {"a b", "\"x\"", "'x'", "$(reboot)", "`id`", "a;b", "a&b", "a|b", "a<b", "a>b", "a\\b",
                          "a\nb", "a\tb"}) {
    auto r = ValidateValue(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("kernel parameter value"), std::string::npos);
  }
  EXPECT_FALSE(ValidateValue(std::string("a\0b", 3)));
  EXPECT_FALSE(ValidateValue(std::string(257, 'x')));
  EXPECT_TRUE(ValidateValue(std::string(256, 'x')));
  EXPECT_FALSE(ValidateKey(std::string(257, 'k')));
}

TEST(CmdlineTokensTest, EditTextKeepsEveryOtherByte) {
  std::vector<std::string> add{"iommu=pt"};
  std::vector<std::string> none;
  // Spacing, quotes and the trailing newline survive; the new token goes after the last one.
  EXPECT_EQ(EditCmdlineText("root=UUID=x  ro \"a=b c\"\n", add, none), "root=UUID=x  ro \"a=b c\" iommu=pt\n");
  // An existing key is replaced where it stands.
  EXPECT_EQ(EditCmdlineText("quiet iommu=soft   splash", add, none), "quiet iommu=pt   splash");
  EXPECT_EQ(EditCmdlineText("", add, none), "iommu=pt");
  EXPECT_EQ(EditCmdlineText("ro -- single", add, none), "ro iommu=pt -- single");
  std::vector<std::string> rm{"iommu", "amdgpu.noretry"};
  EXPECT_EQ(EditCmdlineText("iommu=pt quiet  amdgpu.noretry=0 splash", none, rm), "quiet splash");
  EXPECT_EQ(EditCmdlineText("quiet  iommu=pt\n", none, rm), "quiet\n");
  EXPECT_EQ(EditCmdlineText("iommu=pt\n", none, rm), "\n");
  // Removal first, then additions: a key in both ends up once, at the end.
  std::vector<std::string> both{"iommu"};
  EXPECT_EQ(EditCmdlineText("iommu=soft quiet", add, both), "quiet iommu=pt");
  EXPECT_FALSE(EditCmdlineText("quiet", std::vector<std::string>{"x=$(reboot)"}, none));
  EXPECT_FALSE(EditCmdlineText("quiet", none, std::vector<std::string>{"a b"}));
}

}  // namespace
}  // namespace rocmtune::knobs
