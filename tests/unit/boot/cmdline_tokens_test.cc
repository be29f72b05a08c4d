#include "boot/cmdline_tokens.h"

#include <gtest/gtest.h>

namespace rocmtune::boot {
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
  EXPECT_EQ(TokenValue(t, "quiet"), "");        // a flag
  EXPECT_EQ(TokenValue(t, "amd_iommu"), "on");  // '-' and '_' are one character in names
  EXPECT_EQ(TokenValue(t, "foo"), "a b");       // quotes removed as the kernel does
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
  EXPECT_EQ(t, (Tokens{"quiet", "iommu=off", "splash", "iommu=pt", "amdgpu.noretry=0", "nomodeset", "--", "single"}));
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
  for (const char* bad :
       {"a b", "\"x\"", "'x'", "$(reboot)", "`id`", "a;b", "a&b", "a|b", "a<b", "a>b", "a\\b", "a\nb", "a\tb"}) {
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

TEST(CmdlineFilesTest, BlsOptions) {
  const std::string fedora =
      "title Fedora Linux (6.11.4-301.fc41.x86_64) 41 (Workstation Edition)\n"
      "version 6.11.4-301.fc41.x86_64\n"
      "options root=UUID=439868dc ro rhgb quiet\n"
      "grub_users $grub_users\n";
  auto out = SetBlsOptions(fedora, Tokens{"iommu=pt"}, Tokens{"rhgb"});
  ASSERT_TRUE(out);
  EXPECT_EQ(*out,
            "title Fedora Linux (6.11.4-301.fc41.x86_64) 41 (Workstation Edition)\n"
            "version 6.11.4-301.fc41.x86_64\n"
            "options root=UUID=439868dc ro quiet iommu=pt\n"
            "grub_users $grub_users\n");

  // RHEL 9: GRUB variables in options are kept; systemd-style column spacing too.
  out = SetBlsOptions("options    root=/dev/x ro iommu=pt $tuned_params\r\nlinux /vmlinuz\n",
                      Tokens{"amdgpu.noretry=0"}, Tokens{"iommu"});
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, "options    root=/dev/x ro $tuned_params amdgpu.noretry=0\r\nlinux /vmlinuz\n");

  // Two options lines: an existing key is replaced where it is; a new one joins the last line.
  out = SetBlsOptions("options a iommu=soft\noptions b\n", Tokens{"iommu=pt", "x=1"}, {});
  EXPECT_EQ(*out, "options a iommu=pt\noptions b x=1\n");

  out = SetBlsOptions("title x\nlinux /vmlinuz", Tokens{"iommu=pt"}, {});
  EXPECT_EQ(*out, "title x\nlinux /vmlinuz\noptions iommu=pt\n");
  out = SetBlsOptions("options\n", Tokens{"iommu=pt"}, {});
  EXPECT_EQ(*out, "options iommu=pt\n");
  EXPECT_EQ(*SetBlsOptions("optionsx a\n", {}, Tokens{"a"}), "optionsx a\n");  // not an options line

  auto refused = SetBlsOptions("options $kernelopts $tuned_params\n", Tokens{"iommu=pt"}, {});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kUnsupported);
  EXPECT_FALSE(SetBlsOptions(fedora, Tokens{"x=$y"}, {}));
}

TEST(CmdlineFilesTest, KernelCmdlineFile) {
  auto out = SetKernelCmdlineFile("root=UUID=3cf7 ro rhgb quiet\n", Tokens{"iommu=pt"}, Tokens{"rhgb"});
  EXPECT_EQ(*out, "root=UUID=3cf7 ro quiet iommu=pt\n");
  EXPECT_EQ(*SetKernelCmdlineFile("", Tokens{"iommu=pt"}, {}), "iommu=pt\n");
  EXPECT_EQ(*SetKernelCmdlineFile("quiet", {}, Tokens{"iommu"}), "quiet");
}

}  // namespace
}  // namespace rocmtune::boot
