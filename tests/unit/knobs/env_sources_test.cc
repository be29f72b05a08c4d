#include "knobs/env_sources.h"

#include <gtest/gtest.h>

#include "test_tree.h"

namespace rocmtune::knobs {
namespace {

TEST(EnvAssignmentTest, ReadsPlainAndExportedLiterals) {
  auto a = ParseEnvAssignment("HSA_OVERRIDE_GFX_VERSION=10.3.0", false);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->name, "HSA_OVERRIDE_GFX_VERSION");
  EXPECT_EQ(a->value, "10.3.0");
  EXPECT_EQ(ParseEnvAssignment("  export  HIP_VISIBLE_DEVICES=\"0,1\"  ", true)->value, "0,1");
  EXPECT_EQ(ParseEnvAssignment("export A='x y' # the seeds said so", true)->value, "x y");
  EXPECT_EQ(ParseEnvAssignment("export A=1; echo hi", true)->value, "1");
  EXPECT_EQ(ParseEnvAssignment("A=1\r", false)->value, "1");                    // CRLF file
  EXPECT_EQ(ParseEnvAssignment(std::string("A=1\0\0", 5), false)->value, "1");  // NUL padding
  EXPECT_EQ(ParseEnvAssignment("A=", false)->value, "");
}

// Shell files read as sh reads them (util/shell_words.h): a '#' starts a comment only where a
// word starts, quotes nest as the shell nests them.
TEST(EnvAssignmentTest, ShellQuotingAsTheShellReadsIt) {
  const std::pair<const char*, const char*> cases[] = {
      {"export HIP_VISIBLE_DEVICES=\"0 #1\"", "0 #1"},       // '#' inside "..." is text
      {"export HIP_VISIBLE_DEVICES='0 #1'", "0 #1"},         // and inside '...'
      {"export A=\"say \\\"hi\\\"\" # note", "say \"hi\""},  // escaped quotes, then a comment
      {"export A=\"x y\"#z", "x y#z"},                       // '#' after a quote is in the word
      {"A=x #y", "x"},                                       // '#' where a word starts: a comment
      {"A=x#y", "x#y"},
      {"A=\"a\"'b'c", "abc"},  // one word, three quotings
      {"A=a\\ b", "a b"},      // backslash outside quotes
  };
  for (const auto& [line, value] : cases) {
    auto a = ParseEnvAssignment(line, true);
    ASSERT_TRUE(a) << line;
    EXPECT_EQ(a->value, value) << line;
  }
}

TEST(ForeignEnvTest, ShellValuesSpanLinesAndKeepTheirLineNumbers) {
  testing::TestTree t;
  t.Write("etc/profile.d/rocm.sh",
          "# a\nexport HSA_ENABLE_SDMA=\"0\nx\"\nexport \\\n  HIP_VISIBLE_DEVICES=\"0 #1\"\nA=1 true\n");
  auto root = sys::Root::Open(t.path());
  ASSERT_TRUE(root);
  auto all = ForeignEnvSettings(*root);
  ASSERT_EQ(all.size(), 2u);  // `A=1 true` sets A for `true` only
  EXPECT_EQ(all[0].line, 2);
  EXPECT_EQ(all[0].value, "0\nx");
  EXPECT_EQ(all[1].line, 5);
  EXPECT_EQ(all[1].name, "HIP_VISIBLE_DEVICES");
  EXPECT_EQ(all[1].value, "0 #1");
}

TEST(EnvAssignmentTest, ShellExpansionsHaveNoKnownValue) {
  for (const char* line : {"export A=$(cat /etc/x)", "A=\"${B}\"", "export A=`uname -r`", "A=${B:-x}"}) {
    auto a = ParseEnvAssignment(line, true);
    ASSERT_TRUE(a) << line;
    EXPECT_EQ(a->name, "A");
    EXPECT_FALSE(a->value) << line;
  }
}

TEST(EnvAssignmentTest, LinesThatAssignNothing) {
  for (const char* line :
       {"", "# A=1", "  #export A=1", "if [ -n \"$A\" ]; then", "echo A=1", "1A=2", "A B=1", "export", "A =1", "=1"}) {
    EXPECT_FALSE(ParseEnvAssignment(line, true)) << line;
  }
}

TEST(ForeignEnvTest, EveryPlaceButRocmtunesOwnInReadingOrder) {
  testing::TestTree t;
  t.Write("etc/environment", "PATH=\"/usr/bin\"\nHSA_OVERRIDE_GFX_VERSION=\"10.3.0\"\n");
  t.Write("usr/lib/environment.d/10-x.conf", "HIP_VISIBLE_DEVICES=0\n");
  t.Write("etc/environment.d/50-site.conf", "HSA_ENABLE_SDMA=0\n");
  t.Write("etc/environment.d/90-rocmtune.conf", "HSA_OVERRIDE_GFX_VERSION=10.1.0\n");  // ours: not foreign
  t.Write("etc/environment.d/README", "HSA_OVERRIDE_GFX_VERSION=9.0.0\n");             // not *.conf: unread
  t.Write("etc/profile.d/rocm.sh", "# from a forum\nexport HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
  t.Write("etc/profile.d/rocmtune.sh", "export HSA_OVERRIDE_GFX_VERSION=10.1.0\n");  // ours
  t.Write("etc/bash.bashrc", "export MIOPEN_DEBUG_CONV_WINOGRAD=0\n");
  auto root = sys::Root::Open(t.path());
  ASSERT_TRUE(root);
  auto all = ForeignEnvSettings(*root);
  std::vector<std::string> seen;
  for (const auto& s : all) seen.push_back(s.file + ":" + std::to_string(s.line) + " " + s.name);
  EXPECT_EQ(seen, (std::vector<std::string>{"etc/environment:1 PATH", "etc/environment:2 HSA_OVERRIDE_GFX_VERSION",
                                            "usr/lib/environment.d/10-x.conf:1 HIP_VISIBLE_DEVICES",
                                            "etc/environment.d/50-site.conf:1 HSA_ENABLE_SDMA",
                                            "etc/profile.d/rocm.sh:2 HSA_OVERRIDE_GFX_VERSION",
                                            "etc/bash.bashrc:1 MIOPEN_DEBUG_CONV_WINOGRAD"}));
  EXPECT_EQ(all[1].value, "10.3.0");
}

TEST(ForeignEnvTest, UnreadableOrMissingSourcesAreSkipped) {
  testing::TestTree t;
  t.Mkdir("etc/profile.d/dir.sh");                        // a directory named like a script
  t.Write("etc/environment", std::string(2 << 20, 'A'));  // over the size bound
  auto root = sys::Root::Open(t.path());
  ASSERT_TRUE(root);
  EXPECT_TRUE(ForeignEnvSettings(*root).empty());
}

}  // namespace
}  // namespace rocmtune::knobs
