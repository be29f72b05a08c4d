// The shipped known-issue base (data/known_issues.toml): every entry has sources and a fix,
// every rule parses, every knob a fix names is a knob rocmtune knows and every profile it names
// ships; and the parser refuses the rules it cannot honour rather than widen them.
#include "knowledge/known_issues.h"

#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "edited.h"
#include "knobs/knob_key.h"
#include "knowledge/catalog.h"
#include "knowledge/env_vars.h"
#include "knowledge/kernel_options.h"
#include "profiles/profile_store.h"

namespace rocmtune::knowledge {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Whether `key` names a knob of the catalog, the kernel options or the environment table.
std::string KnobProblem(const knobs::KnobKey& key) {
  switch (key.kind) {
    case knobs::KnobKind::kModuleParam:
      return Catalog::Builtin().Find(key.module, key.name) ? "" : "not in data/catalog.toml";
    case knobs::KnobKind::kCmdline: return KernelOptions::Builtin().Find(key.name) ? "" : "not a kernel option";
    case knobs::KnobKind::kEnv: return EnvVars::Builtin().Find(key.name) ? "" : "not in data/env_vars.toml";
    case knobs::KnobKind::kSysfs: return "";
    case knobs::KnobKind::kService:
      return key.Text() == "service.power-profiles-daemon.amdgpu_dpm" ? "" : "no such service knob";
  }
  return "unknown kind";
}

TEST(KnownIssuesTest, EveryShippedEntryHasSourcesAFixAndKnobsAndProfilesThatExist) {
  const KnownIssues& base = KnownIssues::Builtin();
  ASSERT_GE(base.issues().size(), 6u);
  std::set<std::string> profiles;
  for (const profiles::BuiltinProfile& p : profiles::BuiltinProfiles()) profiles.insert(std::string(p.name));
  for (const KnownIssue& i : base.issues()) {
    SCOPED_TRACE(i.id);
    EXPECT_FALSE(i.sources.empty());
    // A crash or a missing GPU shows in a log; a performance limit a machine fact shows may not.
    if (i.outcome != Outcome::kLimits) {
      EXPECT_FALSE(i.symptoms.empty());
    }
    EXPECT_FALSE(i.fix.text.empty());
    EXPECT_TRUE(i.fix.profile.empty() || profiles.count(i.fix.profile)) << i.fix.profile;
    for (const std::string& s : i.fix.set) {
      auto a = knobs::ParseAssignment(s);
      ASSERT_TRUE(a) << s << ": " << a.error().message;
      EXPECT_EQ(KnobProblem(a->key), "") << s;
    }
    for (const std::string& u : i.fix.unset) {
      auto k = knobs::ParseKnobKey(u);
      ASSERT_TRUE(k) << u << ": " << k.error().message;
      EXPECT_EQ(KnobProblem(*k), "") << u;
    }
  }
}

// The seeds' fixes that are invalid or do nothing are never a known issue's remedy.
TEST(KnownIssuesTest, NoFixIsASeedsIneffectiveOrInvalidSetting) {
  for (const KnownIssue& i : KnownIssues::Builtin().issues()) {
    SCOPED_TRACE(i.id);
    for (const std::string& s : i.fix.set) {
      EXPECT_THAT(s, Not(HasSubstr("mtype_local")));
      EXPECT_THAT(s, Not(HasSubstr("amd_iommu")));
      EXPECT_THAT(s, Not(HasSubstr("PYTORCH_MAX_SPLIT_SIZE_MB")));
      EXPECT_THAT(s, Not(HasSubstr("HSA_OVERRIDE_GFX_VERSION")));
    }
  }
}

constexpr std::string_view kValid = R"(
[[issue]]
id = "x"
title = "t"
why = "w"
severity = "warning"
confidence = "low"
outcome = "crash"
workloads = ["conv"]
symptoms = ["boom"]
sources = ["s"]
[issue.when]
gfx = ["gfx1030"]
rocm_below = "7.0"
env = { A = "1.*" }
facts = ["gpu-not-in-kfd"]
[issue.fix]
text = "do"
)";

std::string Broken(std::string_view from, std::string_view to) {
  auto parsed = KnownIssues::Parse(rocmtune::testing::Edited(kValid, from, to), "t.toml");
  return parsed ? "" : parsed.error().message;
}

TEST(KnownIssuesTest, ParsesARule) {
  auto parsed = KnownIssues::Parse(kValid, "t.toml");
  ASSERT_TRUE(parsed) << parsed.error().message;
  const KnownIssue& i = parsed->issues().at(0);
  EXPECT_EQ(i.when.gfx, std::vector<std::string>{"gfx1030"});
  EXPECT_EQ(i.when.rocm_below, ParseVersion("7"));
  EXPECT_EQ(i.when.env.at("A"), "1.*");
  EXPECT_EQ(i.when.facts, std::vector<std::string>{"gpu-not-in-kfd"});
  EXPECT_EQ(i.outcome, Outcome::kCrash);
  EXPECT_EQ(i.severity, IssueSeverity::kWarning);
  EXPECT_EQ(i.confidence, Confidence::kLow);
  EXPECT_EQ(i.workloads, std::vector<std::string>{"conv"});
  EXPECT_TRUE(i.Hits("conv"));
  EXPECT_TRUE(i.Hits("any"));
  EXPECT_FALSE(i.Hits("gemm"));
}

// Without `workloads` a crash hits every kind of work.
TEST(KnownIssuesTest, ACrashWithoutWorkloadsHitsEveryWorkload) {
  std::string text(kValid);
  constexpr std::string_view kLine = "workloads = [\"conv\"]\n";
  text.erase(text.find(kLine), kLine.size());
  auto parsed = KnownIssues::Parse(text, "t.toml");
  ASSERT_TRUE(parsed) << parsed.error().message;
  for (std::string_view w : kWorkloads) EXPECT_TRUE(parsed->issues().at(0).Hits(w)) << w;
}

// Severity and confidence are parsed once into enums; a bad value is refused naming it.
TEST(KnownIssuesTest, SeverityAndConfidenceAreEnums) {
  EXPECT_THAT(Broken("severity = \"warning\"", "severity = \"critical\""),
              HasSubstr("issue 'x': severity 'critical' must be info, warning or error"));
  EXPECT_THAT(Broken("confidence = \"low\"", "confidence = \"sure\""),
              HasSubstr("issue 'x': confidence 'sure' must be high, medium or low"));
  for (IssueSeverity s : {IssueSeverity::kInfo, IssueSeverity::kWarning, IssueSeverity::kError})
    EXPECT_EQ(ParseIssueSeverity(IssueSeverityName(s)), s);
  for (Confidence c : {Confidence::kHigh, Confidence::kMedium, Confidence::kLow})
    EXPECT_EQ(ParseConfidence(ConfidenceName(c)), c);
  EXPECT_LT(IssueSeverity::kWarning, IssueSeverity::kError);
}

TEST(KnownIssuesTest, RefusesWhatItCannotHonour) {
  EXPECT_THAT(Broken("rocm_below", "rocm_under"), HasSubstr("unknown key 'rocm_under'"));
  EXPECT_THAT(Broken("\"7.0\"", "\"seven\""), HasSubstr("not a version"));
  EXPECT_THAT(Broken("gpu-not-in-kfd", "gpu-on-fire"), HasSubstr("unknown fact"));
  EXPECT_THAT(Broken("sources = [\"s\"]", "sources = []"), HasSubstr("no sources"));
  EXPECT_THAT(Broken("text = \"do\"", "profile = \"p\""), HasSubstr("no text"));
  EXPECT_THAT(Broken("severity = \"warning\"", "severity = \"bad\""), HasSubstr("severity"));
  EXPECT_THAT(Broken("[issue.fix]", "[issue.fixes]"), HasSubstr("unknown key 'fixes'"));
  EXPECT_THAT(Broken("symptoms = [\"boom\"]", "symptoms = []\n[issue.x]"), HasSubstr("unknown key 'x'"));
  EXPECT_THAT(Broken("sources = [\"s\"]", "sources = [\"s\"]\nsupersedes = [\"issue.y\"]"),
              HasSubstr("supersedes 'issue.y' is not a doctor check's finding id"));
  EXPECT_THAT(Broken("sources = [\"s\"]", "sources = [\"s\"]\nsupersedes = [\"gpu\"]"), HasSubstr("supersedes 'gpu'"));
  // check-compute's answer depends on these: nothing may be left to a default.
  EXPECT_THAT(Broken("outcome = \"crash\"\n", ""), HasSubstr("outcome must be"));
  EXPECT_THAT(Broken("\"crash\"", "\"fatal\""), HasSubstr("outcome must be"));
  EXPECT_THAT(Broken("[\"conv\"]", "[\"convolution\"]"), HasSubstr("unknown workload 'convolution'"));
  EXPECT_THAT(Broken("[\"conv\"]", "[\"any\"]"), HasSubstr("unknown workload 'any'"));
  EXPECT_THAT(Broken("[\"conv\"]", "[]"), HasSubstr("non-empty list"));
  EXPECT_THAT(Broken("[\"conv\"]", "\"conv\""), HasSubstr("'workloads' must be an array of strings, not a string"));
  EXPECT_THAT(Broken("\"crash\"", "\"no-gpu\""), HasSubstr("workloads is for outcome \"crash\" only"));
  EXPECT_THAT(Broken("\"crash\"", "\"limits\""), HasSubstr("workloads is for outcome \"crash\" only"));
  EXPECT_THAT(Broken("text = \"do\"", "text = \"do\"\nnone = \"unsupported\""), HasSubstr("needs outcome \"no-gpu\""));
  // A required symptom narrows the symptoms; it never stands alone, and an empty one would match all.
  EXPECT_THAT(Broken("symptoms = [\"boom\"]", "requires_symptom = [\"solver\"]"),
              HasSubstr("requires_symptom without symptoms"));
  EXPECT_THAT(Broken("symptoms = [\"boom\"]", "symptoms = [\"boom\"]\nrequires_symptom = [\" \"]"),
              HasSubstr("empty requires_symptom"));
}

// RDNA1 is judged by the code objects of the runtime a program loads (AMD's rocBLAS carries
// gfx1010, TheRock ships native gfx101x wheels), so the RDNA1 entry only explains a log's
// missing-code-object error: it supersedes no generic finding, and it has a fix, not `none`.
TEST(KnownIssuesTest, Rdna1EntryExplainsAMissingCodeObjectAndNamesANativeRuntime) {
  const KnownIssue* i = KnownIssues::Builtin().Find("rdna1-not-supported");
  ASSERT_NE(i, nullptr);
  EXPECT_TRUE(i->supersedes.empty());
  EXPECT_TRUE(i->when.log_only);
  EXPECT_EQ(i->outcome, Outcome::kExplains);
  EXPECT_TRUE(i->fix.none.empty());
  EXPECT_THAT(i->fix.text, HasSubstr("rocm[libraries,device-gfx1010]"));
  EXPECT_THAT(i->symptoms, ::testing::Contains("hipErrorNoBinaryForGpu"));
  auto parsed =
      KnownIssues::Parse(std::string(kValid).replace(kValid.find("sources"), 0, "supersedes = [\"a.b\"]\n"), "t.toml");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->issues().at(0).supersedes, std::vector<std::string>{"a.b"});
}

// The shipped outcomes check-compute answers with (data/known_issues.toml's sources): RDNA1's
// missing code objects are an explanation of a log; the override on it crashes any kind of work (ROCm#2527:
// convolutions and llama.cpp's hipBLAS); RDNA2's MIOpen faults are convolutions only (MIOpen#3540).
TEST(KnownIssuesTest, ShippedOutcomesAndWorkloads) {
  const KnownIssues& base = KnownIssues::Builtin();
  auto outcome = [&](std::string_view id) {
    const KnownIssue* i = base.Find(id);
    EXPECT_NE(i, nullptr) << id;
    return i ? std::string(OutcomeName(i->outcome)) : "";
  };
  EXPECT_EQ(outcome("rdna1-not-supported"), "explains");
  EXPECT_EQ(outcome("kfd-skipped-gpu"), "no-gpu");
  EXPECT_EQ(outcome("rdna1-override-gfx1030"), "crash");
  EXPECT_EQ(outcome("rdna2-miopen-conv-fault"), "crash");
  EXPECT_EQ(outcome("strix-halo-gtt-limit"), "limits");
  EXPECT_EQ(outcome("aperture-violation-kernel-fault"), "explains");
  EXPECT_TRUE(base.Find("rdna1-override-gfx1030")->workloads.empty());
  EXPECT_EQ(base.Find("rdna2-miopen-conv-fault")->workloads, std::vector<std::string>{"conv"});
  for (const KnownIssue& i : base.issues()) {
    if (!i.fix.none.empty()) {
      EXPECT_EQ(i.outcome, Outcome::kNoGpu) << i.id;
    }
  }
}

TEST(KnownIssuesTest, VersionsCompareNumerically) {
  EXPECT_EQ(ParseVersion("6.2"), ParseVersion("6.2.0"));
  EXPECT_LT(*ParseVersion("5.2.3"), *ParseVersion("5.3"));
  EXPECT_LT(*ParseVersion("6.9.9"), *ParseVersion("6.14.0-24-generic"));
  EXPECT_LT(*ParseVersion("6.4.1"), *ParseVersion("7.0"));
  EXPECT_FALSE(ParseVersion("rocm"));
}

}  // namespace
}  // namespace rocmtune::knowledge
