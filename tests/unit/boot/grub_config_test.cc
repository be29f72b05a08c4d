#include "boot/grub_config.h"

#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "plan/owned_paths.h"
#include "test_tree.h"
#include "world_names.h"

namespace rocmtune::boot {
namespace {

namespace fs = std::filesystem;
using testing::TestTree;
using Tokens = std::vector<std::string>;

GrubVars Eval(const TestTree& t, bool dropins = true) {
  auto root = sys::Root::Open(t.path());
  EXPECT_TRUE(root);
  auto vars = EvaluateGrubDefaults(*root, dropins);
  EXPECT_TRUE(vars) << (vars ? "" : vars.error().message);
  return vars ? *vars : GrubVars{};
}

// Evaluates a tree holding only /etc/default/grub with `content`.
GrubVars EvalDefault(std::string_view content) {
  TestTree t;
  t.Write("etc/default/grub", content);
  return Eval(t);
}

// Debian 12's stock file (the GRUB_DISTRIBUTOR line runs a command: only that variable is unknown).
constexpr std::string_view kDebianGrub =
    "# If you change this file, run 'update-grub' afterwards to update\n"
    "GRUB_DEFAULT=0\n"
    "GRUB_TIMEOUT=5\n"
    "GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`\n"
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n"
    "GRUB_CMDLINE_LINUX=\"\"\n"
    "#GRUB_DISABLE_OS_PROBER=false\n";

// livecd-rootfs live-build/ubuntu-cpc/hooks.d/chroot/999-cpc-fixes.chroot writes this file.
constexpr std::string_view kCloudimg =
    "# Cloud Image specific Grub settings for Generic Cloud Images\n"
    "# CLOUD_IMG: This file was created/modified by the Cloud Image build process\n"
    "\n"
    "# Set the recordfail timeout\n"
    "GRUB_RECORDFAIL_TIMEOUT=0\n"
    "\n"
    "# Do not wait on grub prompt\n"
    "GRUB_TIMEOUT=0\n"
    "\n"
    "# Set the default commandline\n"
    "GRUB_CMDLINE_LINUX_DEFAULT=\"console=tty1 console=ttyS0\"\n"
    "\n"
    "# Set the grub console type\n"
    "GRUB_TERMINAL=console\n";

TEST(GrubEvalTest, StockDebianFileIsKnownDespiteTheCommandSubstitution) {
  GrubVars v = EvalDefault(kDebianGrub);
  EXPECT_EQ(v.linux, "");
  EXPECT_EQ(v.linux_default, "quiet");
  EXPECT_EQ(v.linux_default_origin, "etc/default/grub:5");
  EXPECT_TRUE(v.unsupported.empty());
  ASSERT_EQ(v.opaque.size(), 1u);
  EXPECT_EQ(v.opaque[0].rfind("etc/default/grub:4: GRUB_DISTRIBUTOR (command substitution", 0), 0u) << v.opaque[0];
  EXPECT_EQ(EffectiveLinuxArgs(v), "quiet");
}

TEST(GrubEvalTest, Quoting) {
  EXPECT_EQ(EvalDefault("GRUB_CMDLINE_LINUX_DEFAULT='a \"b\" $c'\n").linux_default, "a \"b\" $c");
  EXPECT_EQ(EvalDefault("GRUB_CMDLINE_LINUX_DEFAULT=\"a 'b' \\$c \\\" \\\\ \\x\"\n").linux_default,
            "a 'b' $c \" \\ \\x");
  EXPECT_EQ(EvalDefault("GRUB_CMDLINE_LINUX_DEFAULT=a\\ b\"c d\"'e f'\n").linux_default, "a bc de f");
  EXPECT_EQ(EvalDefault("GRUB_CMDLINE_LINUX_DEFAULT=quiet#notacomment # a comment\n").linux_default,
            "quiet#notacomment");
  EXPECT_EQ(EvalDefault("GRUB_CMDLINE_LINUX_DEFAULT=\n").linux_default, "");
  EXPECT_EQ(EvalDefault("GRUB_CMDLINE_LINUX_DEFAULT=\"a$\"\n").linux_default, "a$");
  // Pathname expansion does not happen in assignments.
  EXPECT_EQ(EvalDefault("GRUB_CMDLINE_LINUX_DEFAULT=*\n").linux_default, "*");
  // A quoted value may span lines.
  EXPECT_EQ(EvalDefault("GRUB_CMDLINE_LINUX_DEFAULT=\"a\nb\"\nGRUB_CMDLINE_LINUX=x\n").linux_default, "a\nb");
}

TEST(GrubEvalTest, ExpansionsOfEarlierValues) {
  GrubVars v = EvalDefault(
      "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n"
      "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT iommu=pt\"\n"
      "extra=amdgpu.noretry=0\n"
      "GRUB_CMDLINE_LINUX=\"${extra}${GRUB_NEVER_SET}\"\n");
  EXPECT_EQ(v.linux_default, "quiet iommu=pt");
  EXPECT_EQ(v.linux, "amdgpu.noretry=0");
  EXPECT_EQ(EffectiveLinuxArgs(v), "amdgpu.noretry=0 quiet iommu=pt");
  // Several assignments in one command apply left to right; ';' separates commands; export.
  v = EvalDefault("A=x B=\"$A y\"; export GRUB_CMDLINE_LINUX=\"$B\" GRUB_CMDLINE_LINUX_DEFAULT; export\n");
  EXPECT_EQ(v.linux, "x y");
  EXPECT_EQ(v.linux_default, "");
  EXPECT_TRUE(v.unsupported.empty());
}

TEST(GrubEvalTest, UnknownValuesStayUnknownWithoutPoisoningOthers) {
  GrubVars v = EvalDefault(
      "GRUB_CMDLINE_LINUX=\"root=$GRUB_DEVICE\"\n"
      "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet $(cat /proc/cmdline)\"\n");
  EXPECT_EQ(v.linux, std::nullopt);
  EXPECT_EQ(v.linux_default, std::nullopt);
  EXPECT_TRUE(v.unsupported.empty());
  ASSERT_EQ(v.opaque.size(), 2u);
  EXPECT_NE(v.opaque[0].find("grub-probe"), std::string::npos);
  EXPECT_EQ(EffectiveLinuxArgs(v), std::nullopt);

  v = EvalDefault("GRUB_CMDLINE_LINUX=\"$HOME\"\nGRUB_CMDLINE_LINUX_DEFAULT=quiet\n");
  EXPECT_EQ(v.linux, std::nullopt);
  EXPECT_EQ(v.linux_default, "quiet");
  ASSERT_EQ(v.opaque.size(), 1u);
  EXPECT_NE(v.opaque[0].find("$HOME is not assigned"), std::string::npos);

  // A later literal assignment makes the variable known again.
  v = EvalDefault("GRUB_CMDLINE_LINUX_DEFAULT=`x`\nGRUB_CMDLINE_LINUX_DEFAULT=quiet\n");
  EXPECT_EQ(v.linux_default, "quiet");
}

TEST(GrubEvalTest, LineContinuation) {
  GrubVars v = EvalDefault(
      "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet \\\nsplash\"\n"
      "GRUB_CMDLINE_LINUX=a\\\nb \\\n  # a comment: '#' starts a word after the continuation\n"
      "GRUB_TIMEOUT=5\n");
  EXPECT_EQ(v.linux_default, "quiet splash");
  EXPECT_EQ(v.linux, "ab");
  EXPECT_TRUE(v.unsupported.empty());
  // Line numbers keep counting through continuations.
  v = EvalDefault("A=1 \\\n  B=2\nif true; then :; fi\n");
  ASSERT_EQ(v.unsupported.size(), 1u);
  EXPECT_EQ(v.unsupported[0].rfind("etc/default/grub:3: `if`", 0), 0u) << v.unsupported[0];
}

TEST(GrubEvalTest, UnsupportedConstructsMakeBothUnknown) {
  const char* cases[] = {
      "if [ -e /x ]; then\nGRUB_CMDLINE_LINUX_DEFAULT=quiet\nfi\n",
      ". /etc/default/other\n",
      "GRUB_CMDLINE_LINUX_DEFAULT=\"${X:-quiet}\"\n",
      "GRUB_CMDLINE_LINUX_DEFAULT=\"$((1+1))\"\n",
      "GRUB_CMDLINE_LINUX_DEFAULT=\"$1\"\n",
      "f() { :; }\n",
      "GRUB_CMDLINE_LINUX_DEFAULT+=\" x\"\n",
      "GRUB_TIMEOUT=5 true\n",
      "GRUB_CMDLINE_LINUX_DEFAULT=quiet && true\n",
      "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\n",
      "GRUB_CMDLINE_LINUX_DEFAULT=$'quiet'\n",
      "GRUB_CMDLINE_LINUX_DEFAULT=~/x\n",
      "unset GRUB_CMDLINE_LINUX\n",
      ";\n",
  };
  for (const char* body : cases) {
    GrubVars v = EvalDefault(std::string("GRUB_CMDLINE_LINUX=\"\"\n") + body);
    EXPECT_EQ(v.linux, std::nullopt) << body;
    EXPECT_EQ(v.linux_default, std::nullopt) << body;
    ASSERT_FALSE(v.unsupported.empty()) << body;
    EXPECT_EQ(v.unsupported[0].rfind("etc/default/grub:2: ", 0), 0u) << v.unsupported[0];
  }
  std::string with_nul = "GRUB_CMDLINE_LINUX_DEFAULT=quiet";
  with_nul += '\0';
  with_nul += "x\n";
  GrubVars v = EvalDefault(with_nul);
  EXPECT_EQ(v.linux_default, std::nullopt);
  EXPECT_EQ(v.unsupported, (Tokens{"etc/default/grub:1: the file contains NUL bytes"}));
}

TEST(GrubEvalTest, CloudImageDropInOverridesDefaultAndOursSortsAfterIt) {
  TestTree t;
  t.Write("etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash iommu=pt\"\nGRUB_CMDLINE_LINUX=\"\"\n");
  t.Write("etc/default/grub.d/50-cloudimg-settings.cfg", kCloudimg);
  GrubVars v = Eval(t);
  // What a naive edit of /etc/default/grub would lose: the cloud file assigns after it.
  EXPECT_EQ(v.linux_default, "console=tty1 console=ttyS0");
  EXPECT_EQ(v.linux_default_origin, "etc/default/grub.d/50-cloudimg-settings.cfg:11");

  auto dropin = RocmtuneDropIn("GRUB_CMDLINE_LINUX_DEFAULT", Tokens{"iommu=pt"});
  ASSERT_TRUE(dropin);
  t.Write(plan::kGrubDropInPath, *dropin);
  v = Eval(t);
  EXPECT_EQ(v.sourced, (Tokens{"etc/default/grub", "etc/default/grub.d/50-cloudimg-settings.cfg",
                               "etc/default/grub.d/zz-rocmtune.cfg"}));
  EXPECT_EQ(v.linux_default, "console=tty1 console=ttyS0 iommu=pt");
  EXPECT_EQ(EffectiveLinuxArgs(v), "console=tty1 console=ttyS0 iommu=pt");
  EXPECT_TRUE(v.unsupported.empty());

  // A file sorting after ours that assigns the variable clobbers the token; the evaluator shows
  // it, and the origin names the culprit.
  t.Write("etc/default/grub.d/zzz.cfg", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n");
  v = Eval(t);
  EXPECT_EQ(v.linux_default, "quiet");
  EXPECT_EQ(v.linux_default_origin, "etc/default/grub.d/zzz.cfg:1");
}

TEST(GrubEvalTest, GlobOrderAndWhatItMatches) {
  TestTree t;
  t.Write("etc/default/grub", "GRUB_CMDLINE_LINUX=\"\"\n");
  for (const char* name : {"a.cfg", "Z.cfg", "9-x.cfg", "10-x.cfg", "b.cfg.bak", ".hidden.cfg", "~x.cfg"})
    t.Write(std::string("etc/default/grub.d/") + name,
            std::string("GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX ") + name + "\"\n");
  t.Symlink("etc/default/grub.d/dangling.cfg", "nowhere.cfg");
  t.Symlink("etc/default/grub.d/link.cfg", "a.cfg");
  GrubVars v = Eval(t);
  // Byte order: digits < upper case < lower case < '~'.
  EXPECT_EQ(v.linux, " 10-x.cfg 9-x.cfg Z.cfg a.cfg a.cfg ~x.cfg");
  EXPECT_EQ(v.sourced.size(), 7u);
  EXPECT_EQ(v.sourced[5], "etc/default/grub.d/link.cfg");

  // Upstream GRUB (Arch, RHEL) reads only /etc/default/grub.
  EXPECT_EQ(Eval(t, false).linux, "");

  t.Mkdir("etc/default/grub.d/dir.cfg");
  v = Eval(t);
  EXPECT_EQ(v.linux, std::nullopt);
  ASSERT_EQ(v.unsupported.size(), 1u);
  EXPECT_NE(v.unsupported[0].find("dir.cfg: not a regular file"), std::string::npos);
}

TEST(GrubEvalTest, NoFilesMeansEmptyValues) {
  TestTree t;
  t.Mkdir("etc");
  GrubVars v = Eval(t);
  EXPECT_EQ(v.linux, "");
  EXPECT_EQ(v.linux_default, "");
  EXPECT_TRUE(v.sourced.empty());
  EXPECT_EQ(v.linux_origin, std::nullopt);
  EXPECT_EQ(EffectiveLinuxArgs(v), "");
}

// Every world's boot configuration is inside what the evaluator models.
TEST(GrubEvalTest, EveryWorldEvaluates) {
  size_t with_grub = 0;
  for (const std::string& world : testing::WorldNames()) {
    const fs::path path = testing::WorldPath(world);
    if (!fs::exists(path / "etc/default/grub")) continue;
    ++with_grub;
    auto root = sys::Root::Open(path.string());
    ASSERT_TRUE(root);
    auto v = EvaluateGrubDefaults(*root, true);
    ASSERT_TRUE(v) << path;
    EXPECT_TRUE(v->unsupported.empty()) << path << ": " << v->unsupported.front();
    EXPECT_TRUE(EffectiveLinuxArgs(*v)) << path;
  }
  EXPECT_GT(with_grub, 10u);
  auto root = sys::Root::Open(std::string(ROCMTUNE_WORLDS_DIR) + "/ubuntu-cloud");
  ASSERT_TRUE(root);
  auto v = EvaluateGrubDefaults(*root, true);
  ASSERT_TRUE(v);
  EXPECT_EQ(EffectiveLinuxArgs(*v), "console=tty1 console=ttyS0");
}

// --- edits ----------------------------------------------------------------------------------

TEST(GrubEditTest, SetAssignmentTokensEditsOnlyTheLastValue) {
  std::string file =
      "# comment kept\n"
      "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n"
      "GRUB_TIMEOUT=5\n"
      "GRUB_CMDLINE_LINUX_DEFAULT=\"loglevel=3  quiet iommu=soft\"   # trailing comment\n"
      "GRUB_DISTRIBUTOR=\"$(sed 's, release .*$,,g' /etc/system-release)\"\n";
  auto out = SetAssignmentTokens(file, "GRUB_CMDLINE_LINUX_DEFAULT", Tokens{"iommu=pt", "amdgpu.noretry=0"},
                                 Tokens{"loglevel"});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(*out,
            "# comment kept\n"
            "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n"
            "GRUB_TIMEOUT=5\n"
            "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet iommu=pt amdgpu.noretry=0\"   # trailing comment\n"
            "GRUB_DISTRIBUTOR=\"$(sed 's, release .*$,,g' /etc/system-release)\"\n");
  // Idempotent.
  auto again = SetAssignmentTokens(*out, "GRUB_CMDLINE_LINUX_DEFAULT", Tokens{"iommu=pt", "amdgpu.noretry=0"},
                                   Tokens{"loglevel"});
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *out);
  // The evaluator sees the edit.
  EXPECT_EQ(EvalDefault(*out).linux_default, "quiet iommu=pt amdgpu.noretry=0");
}

TEST(GrubEditTest, SetAssignmentTokensKeepsQuotingStyle) {
  auto s = SetAssignmentTokens("GRUB_CMDLINE_LINUX='rhgb quiet'\n", "GRUB_CMDLINE_LINUX", Tokens{"iommu=pt"}, {});
  EXPECT_EQ(*s, "GRUB_CMDLINE_LINUX='rhgb quiet iommu=pt'\n");
  s = SetAssignmentTokens("GRUB_CMDLINE_LINUX=quiet\n", "GRUB_CMDLINE_LINUX", {}, Tokens{"splash"});
  EXPECT_EQ(*s, "GRUB_CMDLINE_LINUX=quiet\n");
  s = SetAssignmentTokens("export GRUB_CMDLINE_LINUX=quiet\n", "GRUB_CMDLINE_LINUX", Tokens{"iommu=pt"}, {});
  EXPECT_EQ(*s, "export GRUB_CMDLINE_LINUX=\"quiet iommu=pt\"\n");
  s = SetAssignmentTokens("GRUB_CMDLINE_LINUX=\n", "GRUB_CMDLINE_LINUX", Tokens{"iommu=pt"}, {});
  EXPECT_EQ(*s, "GRUB_CMDLINE_LINUX=iommu=pt\n");
  // No assignment yet: one is appended (after a newline the file lacked).
  s = SetAssignmentTokens("GRUB_TIMEOUT=5", "GRUB_CMDLINE_LINUX", Tokens{"iommu=pt", "quiet"}, {});
  EXPECT_EQ(*s, "GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX=\"iommu=pt quiet\"\n");
  s = SetAssignmentTokens("GRUB_TIMEOUT=5\n", "GRUB_CMDLINE_LINUX", {}, Tokens{"iommu"});
  EXPECT_EQ(*s, "GRUB_TIMEOUT=5\n");
}

TEST(GrubEditTest, SetAssignmentTokensRefusesWhatItCannotEditSafely) {
  for (const char* file : {"GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX quiet\"\n", "GRUB_CMDLINE_LINUX=\"a\"'b'\n",
                           "GRUB_CMDLINE_LINUX=`cat /x`\n", "GRUB_CMDLINE_LINUX=\"a \\\nb\"\n",
                           "GRUB_CMDLINE_LINUX=quiet\nif true; then GRUB_CMDLINE_LINUX=x; fi\n"}) {
    auto s = SetAssignmentTokens(file, "GRUB_CMDLINE_LINUX", Tokens{"iommu=pt"}, {});
    ASSERT_FALSE(s) << file;
    EXPECT_EQ(s.error().code, ErrorCode::kInvalidData) << file;
  }
  EXPECT_FALSE(SetAssignmentTokens("", "GRUB CMDLINE", Tokens{"iommu=pt"}, {}));
  EXPECT_FALSE(SetAssignmentTokens("GRUB_CMDLINE_LINUX=\"\"\n", "GRUB_CMDLINE_LINUX", Tokens{"x=`id`"}, {}));
}

TEST(GrubEditTest, DropInTextAndItsTokens) {
  auto text = RocmtuneDropIn("GRUB_CMDLINE_LINUX_DEFAULT", Tokens{"iommu=pt", "amdgpu.noretry=0"});
  ASSERT_TRUE(text);
  EXPECT_NE(text->find("# Managed by rocmtune; do not edit."), std::string::npos);
  EXPECT_TRUE(
      text->ends_with("\nGRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT iommu=pt amdgpu.noretry=0\"\n"));
  EXPECT_EQ(RocmtuneDropInTokens(*text, "GRUB_CMDLINE_LINUX_DEFAULT"), (Tokens{"iommu=pt", "amdgpu.noretry=0"}));
  EXPECT_EQ(RocmtuneDropInTokens(*text, "GRUB_CMDLINE_LINUX"), std::nullopt);
  // Anything but what RocmtuneDropIn writes is drift.
  EXPECT_EQ(RocmtuneDropInTokens(*text + "GRUB_TIMEOUT=0\n", "GRUB_CMDLINE_LINUX_DEFAULT"), std::nullopt);
  EXPECT_EQ(RocmtuneDropInTokens("# mine\n" + text->substr(text->find("\nGRUB") + 1), "GRUB_CMDLINE_LINUX_DEFAULT"),
            std::nullopt);

  // With nothing assigned before it, the value starts with a space the kernel ignores.
  TestTree t;
  t.Write(plan::kGrubDropInPath, *text);
  EXPECT_EQ(Eval(t).linux_default, " iommu=pt amdgpu.noretry=0");

  EXPECT_FALSE(RocmtuneDropIn("GRUB_TIMEOUT", Tokens{"iommu=pt"}));
  EXPECT_FALSE(RocmtuneDropIn("GRUB_CMDLINE_LINUX", Tokens{}));
  EXPECT_FALSE(RocmtuneDropIn("GRUB_CMDLINE_LINUX", Tokens{"a=\"b\""}));
}

}  // namespace
}  // namespace rocmtune::boot

namespace rocmtune::boot {
namespace {

std::vector<std::string> TokensAt(const GrubVars& v) {
  std::vector<std::string> out;
  if (auto tokens = EffectiveLinuxTokens(v))
    for (const CmdlineTokenAt& t : *tokens) out.push_back(fmt::format("{}:{} {}", t.file, t.line, t.token));
  return out;
}

// Each token of the next boot's GRUB command line names the file and line whose text holds it:
// through $VAR references, across a drop-in, and down a quoted value over several lines.
TEST(GrubEvalTest, TokensCarryTheFileAndLineTheirTextIsWrittenOn) {
  GrubVars v = EvalDefault(
      "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n"
      "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT iommu=pt\"\n"
      "extra=amdgpu.noretry=0\n"
      "GRUB_CMDLINE_LINUX=\"${extra}${GRUB_NEVER_SET} a\nb\"\n");
  EXPECT_EQ(TokensAt(v), (std::vector<std::string>{"etc/default/grub:3 amdgpu.noretry=0", "etc/default/grub:4 a",
                                                   "etc/default/grub:5 b", "etc/default/grub:1 quiet",
                                                   "etc/default/grub:2 iommu=pt"}));

  TestTree t;
  t.Write("etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n");
  t.Write("etc/default/grub.d/50-x.cfg",
          "# the admin's\nGRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT ttm.pages_limit=4194304\"\n");
  EXPECT_EQ(TokensAt(Eval(t)), (std::vector<std::string>{"etc/default/grub:1 quiet",
                                                         "etc/default/grub.d/50-x.cfg:2 ttm.pages_limit=4194304"}));
  // Unknown: no tokens, as EffectiveLinuxArgs has no value.
  EXPECT_EQ(EffectiveLinuxTokens(EvalDefault("GRUB_CMDLINE_LINUX=\"$(date)\"\n")), std::nullopt);
}

}  // namespace
}  // namespace rocmtune::boot
