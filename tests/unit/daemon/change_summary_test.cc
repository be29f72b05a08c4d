#include "daemon/change_summary.h"

#include <gtest/gtest.h>

namespace rocmtune::daemon {
namespace {

plan::Op Write(std::string path) {
  plan::Op op;
  op.kind = plan::OpKind::kWriteFile;
  op.path = std::move(path);
  op.after = "x";
  return op;
}

TEST(ChangeSummaryTest, NamesTheStepsAndKeysNeverTheValues) {
  api::ChangeReport report;
  report.plan.intent.verb = "set";
  report.plan.intent.args = {"amdgpu.noretry=0", "cmdline.iommu=pt"};
  report.plan.ops.push_back(Write("etc/modprobe.d/rocmtune.conf"));
  report.plan.ops.push_back(Write("etc/default/grub.d/rocmtune.cfg"));
  plan::Op regen;
  regen.kind = plan::OpKind::kRegenerate;
  regen.path = "bootloader";
  regen.argv = {"update-grub"};
  report.plan.ops.push_back(regen);
  ChangeSummary s = Summarize(report);
  EXPECT_EQ(s.keys, (std::vector<std::string>{"amdgpu.noretry", "cmdline.iommu"}));
  ASSERT_EQ(s.steps.size(), 3U);
  EXPECT_NE(s.steps[0].find("etc/modprobe.d/rocmtune.conf"), std::string::npos);
  EXPECT_EQ(s.steps[2], "run update-grub");
  const std::string text = s.Text();
  EXPECT_NE(text.find("etc/default/grub.d/rocmtune.cfg"), std::string::npos) << text;
  EXPECT_NE(text.find("cmdline.iommu"), std::string::npos) << text;
  EXPECT_EQ(text.find("=pt"), std::string::npos) << text;
  EXPECT_TRUE(WouldWrite(report));
}

TEST(ChangeSummaryTest, RevertsNameTheirKeysAndABlockedPlanWritesNothing) {
  api::ChangeReport report;
  report.plan.intent.verb = "revert";
  report.knobs = {"ttm.pages_limit"};
  report.plan.ops.push_back(Write("etc/modprobe.d/rocmtune.conf"));
  EXPECT_EQ(Summarize(report).keys, (std::vector<std::string>{"ttm.pages_limit"}));
  report.blocked = true;
  EXPECT_FALSE(WouldWrite(report));
  api::ChangeReport empty;
  EXPECT_FALSE(WouldWrite(empty));
  empty.plan.record_if_empty = true;  // an apply that only makes a profile active is recorded
  EXPECT_TRUE(WouldWrite(empty));
  EXPECT_EQ(Summarize(empty).Text(), "record the profile as active");
}

// `unset --admin-lines` and its revert: polkit's details name the admin's file and line.
TEST(ChangeSummaryTest, AnAdminsLineIsNamedByFileAndLine) {
  api::ChangeReport report;
  report.plan.intent.args = {"env.HSA_OVERRIDE_GFX_VERSION"};
  plan::Op op = Write("etc/environment");
  op.before = "LANG=C\nHSA_OVERRIDE_GFX_VERSION=10.3.0\n";
  op.after = "LANG=C\n# rocmtune unset: HSA_OVERRIDE_GFX_VERSION=10.3.0\n";
  report.plan.ops.push_back(op);
  EXPECT_EQ(Summarize(report).steps, (std::vector<std::string>{"comment out etc/environment:2"}));
  std::swap(report.plan.ops[0].before, report.plan.ops[0].after);
  EXPECT_EQ(Summarize(report).steps, (std::vector<std::string>{"put back etc/environment:2"}));
  EXPECT_EQ(Summarize(report).Text().find("10.3.0"), std::string::npos) << "values stay out of polkit's line";
}

TEST(ChangeSummaryTest, ControlBytesAreEscapedAndTheLineIsBounded) {
  api::ChangeReport report;
  report.plan.intent.args = {std::string("evil\x1b[2Jkey=1")};
  for (int i = 0; i < 100; ++i) report.plan.ops.push_back(Write("etc/modprobe.d/rocmtune-" + std::to_string(i)));
  const std::string text = Summarize(report).Text();
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_LE(text.size(), 400U);
}

}  // namespace
}  // namespace rocmtune::daemon
