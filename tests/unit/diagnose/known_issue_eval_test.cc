// The known-issue rules evaluated for one GPU and a workload's inputs (diagnose/known_issue_eval.h):
// the call doctor makes per GPU and a check of a workload can make with its own environment.
#include "diagnose/known_issue_eval.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rocmtune::diagnose {
namespace {

using ::testing::ElementsAre;

constexpr std::string_view kBase = R"(
[[issue]]
id = "override"
title = "t"
why = "w"
severity = "error"
confidence = "medium"
outcome = "crash"
symptoms = ["Memory access fault"]
sources = ["s"]
[issue.when]
gfx = ["gfx1010"]
env = { HSA_OVERRIDE_GFX_VERSION = "10.3.*" }
rocm_min = "5.3"
[issue.fix]
text = "unset it"

[[issue]]
id = "generic"
title = "t"
why = "w"
severity = "info"
confidence = "high"
outcome = "explains"
symptoms = ["APERTURE_VIOLATION"]
sources = ["s"]
[issue.when]
log_only = true
[issue.fix]
text = "find the kernel"
)";

std::vector<std::string> Ids(const std::vector<IssueMatch>& matches) {
  std::vector<std::string> ids;
  for (const IssueMatch& m : matches) ids.push_back(m.issue->id);
  return ids;
}

TEST(KnownIssueEvalTest, EveryKeyOfTheRuleMustHold) {
  auto base = knowledge::KnownIssues::Parse(kBase, "t.toml");
  ASSERT_TRUE(base) << base.error().message;
  detect::Gpu gpu;
  gpu.id = "0000:03:00.0";
  gpu.gfx_target = "gfx1010";
  IssueInputs in{"6.2.0", "6.8.0", {{"HSA_OVERRIDE_GFX_VERSION", "10.3.0"}}, {}};
  EXPECT_THAT(Ids(EvaluateKnownIssues(*base, gpu, in)), ElementsAre("override"));
  IssueInputs old_rocm = in;
  old_rocm.rocm_version = "5.2.3";
  EXPECT_TRUE(EvaluateKnownIssues(*base, gpu, old_rocm).empty());
  IssueInputs unknown_rocm = in;
  unknown_rocm.rocm_version.reset();
  EXPECT_TRUE(EvaluateKnownIssues(*base, gpu, unknown_rocm).empty());
  IssueInputs other_value = in;
  other_value.env["HSA_OVERRIDE_GFX_VERSION"] = "10.1.0";
  EXPECT_TRUE(EvaluateKnownIssues(*base, gpu, other_value).empty());
  detect::Gpu rdna2 = gpu;
  rdna2.gfx_target = "gfx1030";
  EXPECT_TRUE(EvaluateKnownIssues(*base, rdna2, in).empty());
}

TEST(KnownIssueEvalTest, ALogMustShowASymptom) {
  auto base = knowledge::KnownIssues::Parse(kBase, "t.toml");
  ASSERT_TRUE(base) << base.error().message;
  detect::Gpu gpu;
  gpu.gfx_target = "gfx1010";
  IssueInputs in{"6.2.0", std::nullopt, {{"HSA_OVERRIDE_GFX_VERSION", "10.3.0"}}, {}};
  EXPECT_THAT(Ids(EvaluateKnownIssues(*base, gpu, in, "x HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION y")),
              ElementsAre("generic"));
  auto both = EvaluateKnownIssues(*base, gpu, in, "Memory access fault; APERTURE_VIOLATION");
  EXPECT_THAT(Ids(both), ElementsAre("override", "generic"));
  EXPECT_THAT(both[0].symptoms, ElementsAre("Memory access fault"));
  EXPECT_TRUE(EvaluateKnownIssues(*base, gpu, in, "nothing here").empty());
}

// check-compute asks before there is a log: the issues only a log shows are risks too, and every
// other key of their rule must still hold.
TEST(KnownIssueEvalTest, RisksIncludeLogOnlyIssuesWhoseRuleHolds) {
  auto base = knowledge::KnownIssues::Parse(kBase, "t.toml");
  ASSERT_TRUE(base) << base.error().message;
  detect::Gpu gpu;
  gpu.gfx_target = "gfx1010";
  IssueInputs in{"6.2.0", std::nullopt, {{"HSA_OVERRIDE_GFX_VERSION", "10.3.0"}}, {}};
  EXPECT_THAT(Ids(EvaluateKnownIssues(*base, gpu, in)), ElementsAre("override"));
  EXPECT_THAT(Ids(EvaluateKnownRisks(*base, gpu, in)), ElementsAre("override", "generic"));
  in.env.clear();
  EXPECT_THAT(Ids(EvaluateKnownRisks(*base, gpu, in)), ElementsAre("generic"));
}

}  // namespace
}  // namespace rocmtune::diagnose
