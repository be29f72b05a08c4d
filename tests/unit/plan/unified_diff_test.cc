#include "plan/unified_diff.h"

#include <gtest/gtest.h>

namespace rocmtune::plan {
namespace {

TEST(UnifiedDiffTest, NewFile) {
  EXPECT_EQ(UnifiedDiff("etc/modprobe.d/rocmtune.conf", std::nullopt, std::string("options amdgpu noretry=0\n")),
            "--- /dev/null\n+++ b/etc/modprobe.d/rocmtune.conf\n@@ -0,0 +1,1 @@\n+options amdgpu noretry=0\n");
}

TEST(UnifiedDiffTest, RemovedFile) {
  EXPECT_EQ(UnifiedDiff("f", std::string("a\nb\n"), std::nullopt), "--- a/f\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n");
}

TEST(UnifiedDiffTest, EqualIsEmpty) {
  EXPECT_EQ(UnifiedDiff("f", std::string("x\n"), std::string("x\n")), "");
  EXPECT_EQ(UnifiedDiff("f", std::nullopt, std::nullopt), "");
}

TEST(UnifiedDiffTest, ChangeInTheMiddleKeepsThreeLinesOfContext) {
  std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
  std::string after = "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n";
  EXPECT_EQ(UnifiedDiff("f", before, after), "--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n");
}

TEST(UnifiedDiffTest, FarApartChangesMakeTwoHunks) {
  std::string before, after;
  for (int i = 1; i <= 20; ++i) {
    before += std::to_string(i) + "\n";
    after += (i == 2 || i == 18 ? "x" : std::to_string(i)) + "\n";
  }
  std::string d = UnifiedDiff("f", before, after);
  EXPECT_NE(d.find("@@ -1,5 +1,5 @@"), std::string::npos) << d;
  EXPECT_NE(d.find("@@ -15,6 +15,6 @@"), std::string::npos) << d;
}

TEST(UnifiedDiffTest, MissingFinalNewlineIsShown) {
  std::string d = UnifiedDiff("f", std::string("a"), std::string("a\n"));
  EXPECT_NE(d.find("\\ No newline at end of file"), std::string::npos) << d;
}

}  // namespace
}  // namespace rocmtune::plan
