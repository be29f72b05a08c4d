// The shipped ROCm GPU support table (data/rocm_support.toml): every release has a source,
// every target exists in gfx_targets.toml, versions ascend and cover the release lines doctor
// judges (5.0 to 7.x); the lookups pick the right entry; the parser refuses bad input by name.
#include "knowledge/rocm_support.h"

#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "edited.h"

namespace rocmtune::knowledge {
namespace {

using ::testing::HasSubstr;

const RocmRelease& For(std::string_view installed) {
  const RocmRelease* r = RocmSupport::Builtin().ForInstalled(*ParseVersion(installed));
  static const RocmRelease kNone;
  EXPECT_NE(r, nullptr) << installed;
  return r ? *r : kNone;
}

TEST(RocmSupportTest, EveryShippedReleaseHasASourceKnownTargetsAndAscends) {
  const RocmSupport& table = RocmSupport::Builtin();
  ASSERT_GE(table.releases().size(), 18u);
  const GfxTargetTable& targets = GfxTargetTable::Builtin();
  std::set<std::string> lines;
  for (size_t i = 0; i < table.releases().size(); ++i) {
    const RocmRelease& r = table.releases()[i];
    SCOPED_TRACE(r.version_text);
    EXPECT_FALSE(r.source.empty());
    EXPECT_FALSE(r.supported.empty());
    for (const auto* list : {&r.supported, &r.deprecated, &r.unsupported, &r.radeon_ryzen})
      for (const std::string& gfx : *list) EXPECT_NE(targets.ByName(gfx), nullptr) << gfx;
    if (i > 0) {
      EXPECT_LT(table.releases()[i - 1].version, r.version);
    }
    lines.insert(r.version_text.substr(0, r.version_text.find('.', 2)));
  }
  for (const char* line :
       {"5.0", "5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.7", "6.0", "6.1", "6.2", "6.3", "6.4", "7.0", "7.1", "7.2"})
    EXPECT_TRUE(lines.count(line)) << line;
}

// The facts the table was checked against (PROVENANCE.md "rocm_support.toml").
TEST(RocmSupportTest, KnownFactsHold) {
  // Radeon PRO W6800 / V620 (gfx1030) are listed from 5.0 on, through 7.2.
  for (const char* v : {"5.0.2", "5.7.1", "6.2.4", "6.4.1", "7.2.3"})
    EXPECT_EQ(For(v).StatusOf("gfx1030"), TargetSupport::kSupported) << v;
  // RDNA1 is in no release's table.
  for (const RocmRelease& r : RocmSupport::Builtin().releases())
    EXPECT_EQ(r.StatusOf("gfx1010"), TargetSupport::kNotListed) << r.version_text;
  // RDNA3 gfx1100 first in the 5.7.1 docs (RX 7900 XTX, W7900; Ubuntu 22.04 only).
  EXPECT_EQ(For("5.7.0").StatusOf("gfx1100"), TargetSupport::kNotListed);
  EXPECT_EQ(For("5.7.1").StatusOf("gfx1100"), TargetSupport::kSupported);
  // RDNA4 and gfx1101 from 6.4.1; gfx950 (MI350) from 7.0.
  EXPECT_EQ(For("6.4.0").StatusOf("gfx1201"), TargetSupport::kNotListed);
  EXPECT_EQ(For("6.4.1").StatusOf("gfx1201"), TargetSupport::kSupported);
  EXPECT_EQ(For("6.4.3").StatusOf("gfx1101"), TargetSupport::kSupported);
  EXPECT_EQ(For("6.4.3").StatusOf("gfx950"), TargetSupport::kNotListed);
  EXPECT_EQ(For("7.0.1").StatusOf("gfx950"), TargetSupport::kSupported);
  // gfx906: supported in 6.0.0, deprecated 6.0.2 to 6.2, unsupported in 6.4.2 and 7.0; MI25 never.
  EXPECT_EQ(For("6.0.0").StatusOf("gfx906"), TargetSupport::kSupported);
  EXPECT_EQ(For("6.1.3").StatusOf("gfx906"), TargetSupport::kDeprecated);
  EXPECT_EQ(For("7.0.1").StatusOf("gfx906"), TargetSupport::kUnsupported);
  EXPECT_EQ(For("7.2.3").StatusOf("gfx906"), TargetSupport::kNotListed);
  EXPECT_EQ(For("5.7.1").StatusOf("gfx900"), TargetSupport::kUnsupported);
  // Strix Halo / Point: not in the compatibility matrix; on AMD's Radeon and Ryzen pages from 7.0.2.
  EXPECT_EQ(For("6.4.4").StatusOf("gfx1151"), TargetSupport::kNotListed);
  EXPECT_EQ(For("7.0.0").StatusOf("gfx1151"), TargetSupport::kNotListed);
  EXPECT_EQ(For("7.0.2").StatusOf("gfx1151"), TargetSupport::kRadeonRyzen);
  EXPECT_EQ(For("7.2.0").StatusOf("gfx1150"), TargetSupport::kRadeonRyzen);
}

TEST(RocmSupportTest, InstalledReleasesAreJudgedByTheirOwnLineOnly) {
  const RocmSupport& table = RocmSupport::Builtin();
  EXPECT_EQ(For("6.2.4").version_text, "6.2");
  EXPECT_EQ(For("6.0.2").version_text, "6.0.2");
  EXPECT_EQ(For("6.0").version_text, "6.0");
  EXPECT_EQ(For("7.0.1").version_text, "7.0");
  EXPECT_EQ(table.ForInstalled(*ParseVersion("3.5.1")), nullptr);
  EXPECT_EQ(table.ForInstalled(*ParseVersion("4.5.2")), nullptr);
  EXPECT_EQ(table.ForInstalled(*ParseVersion("7.9.0")), nullptr);  // a preview line not in the table
  EXPECT_EQ(table.ForInstalled(*ParseVersion("8")), nullptr);
  // TheRock Core SDK lines (10.x) and nightlies: a pre-release tail is dropped ("7.10.0a20251021"
  // reads as 7.10), so they land in their own line: 7.14, 10.0 and 10.1 have AMD's lists, the
  // previews (7.10) do not.
  EXPECT_EQ(*ParseVersion("7.10.0a20251021"), *ParseVersion("7.10"));
  EXPECT_EQ(*ParseVersion("10.1.0a20260910"), *ParseVersion("10.1"));
  EXPECT_EQ(table.ForInstalled(*ParseVersion("7.10.0a20251021")), nullptr);
  for (auto [v, line] : {std::pair{"7.14.0", "7.14"},
                         {"7.14.1", "7.14"},
                         {"7.14.0a20260609", "7.14"},
                         {"10.0.0", "10.0"},
                         {"10.1.0", "10.1"},
                         {"10.1.0a20260910", "10.1"}}) {
    const RocmRelease* r = table.ForInstalled(*ParseVersion(v));
    ASSERT_NE(r, nullptr) << v;
    EXPECT_EQ(r->version_text, line) << v;
    // The Core SDK releases list gfx1153 (added in 7.14.0) and RDNA3's gfx1102, not RDNA1.
    EXPECT_EQ(r->StatusOf("gfx1153"), TargetSupport::kSupported) << v;
    EXPECT_EQ(r->StatusOf("gfx1102"), TargetSupport::kSupported) << v;
    EXPECT_EQ(r->StatusOf("gfx1010"), TargetSupport::kNotListed) << v;
  }
  EXPECT_EQ(table.ForInstalled(*ParseVersion("7.2.0a20260101"))->version_text, "7.2");
}

TEST(RocmSupportTest, NearestSupportingPrefersTheNextNewerRelease) {
  const RocmSupport& table = RocmSupport::Builtin();
  const RocmRelease* r = table.NearestSupporting("gfx1151", *ParseVersion("6.4.1"));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->version_text, "7.0.2");
  r = table.NearestSupporting("gfx1201", *ParseVersion("6.3.1"));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->version_text, "6.4.1");
  r = table.NearestSupporting("gfx906", *ParseVersion("7.0.1"));  // none newer: the last that did
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->version_text, "6.2");
  EXPECT_EQ(table.NearestSupporting("gfx1010", *ParseVersion("6.2.4")), nullptr);
  // The Core SDK's tables (7.14 on) list the RX 7600 (gfx1102) and the Ryzen APUs in the matrix
  // itself, but still no RDNA1 and only gfx1030 of RDNA2.
  r = table.NearestSupporting("gfx1102", *ParseVersion("7.2.3"));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->version_text, "7.14");
  EXPECT_EQ(table.NearestSupporting("gfx1031", *ParseVersion("7.2.3")), nullptr);
  EXPECT_EQ(table.NearestSupporting("gfx900", *ParseVersion("5.7.1")), nullptr);
}

constexpr std::string_view kValidSupport = R"(schema_version = 1
[[release]]
version = "6.0"
supported = ["gfx1030"]
source = "a"
[[release]]
version = "6.1"
supported = ["gfx1030", "gfx1100"]
deprecated = ["gfx906"]
source = "b"
)";

std::string BrokenSupport(std::string_view from, std::string_view to) {
  auto parsed =
      RocmSupport::Parse(rocmtune::testing::Edited(kValidSupport, from, to), "t.toml", GfxTargetTable::Builtin());
  return parsed ? "" : parsed.error().message;
}

TEST(RocmSupportTest, ParsesAValidTable) {
  auto parsed = RocmSupport::Parse(kValidSupport, "t.toml", GfxTargetTable::Builtin());
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->releases().size(), 2u);
  EXPECT_EQ(parsed->releases()[1].StatusOf("gfx906"), TargetSupport::kDeprecated);
  EXPECT_EQ(parsed->releases()[1].source, "b");
}

TEST(RocmSupportTest, RefusesBadInputWithAClearError) {
  EXPECT_THAT(BrokenSupport("source = \"a\"", "source = \"a\"\nsupport = [\"gfx1030\"]"),
              HasSubstr("release '6.0': unknown key 'support'"));
  EXPECT_THAT(BrokenSupport("schema_version = 1", "schema_version = 1\nreleases = 2"),
              HasSubstr("unknown key 'releases'"));
  EXPECT_THAT(BrokenSupport("schema_version = 1", "schema_version = 2"), HasSubstr("schema_version must be 1"));
  EXPECT_THAT(BrokenSupport("\"6.1\"", "\"6.1.x\""), HasSubstr("release '6.1.x': version must be a release number"));
  EXPECT_THAT(BrokenSupport("\"6.1\"", "\"6.1.0-120\""), HasSubstr("version must be a release number"));
  EXPECT_THAT(BrokenSupport("\"6.1\"", "\"5.7\""), HasSubstr("release '5.7' does not come after '6.0'"));
  EXPECT_THAT(BrokenSupport("\"6.1\"", "\"6.0.0\""), HasSubstr("does not come after"));
  EXPECT_THAT(BrokenSupport("[\"gfx1030\", \"gfx1100\"]", "[\"gfx1030\", \"gfx9999\"]"),
              HasSubstr("supported names 'gfx9999', which is not in gfx_targets.toml"));
  EXPECT_THAT(BrokenSupport("[\"gfx906\"]", "[\"gfx1100\"]"), HasSubstr("'gfx1100' appears twice"));
  EXPECT_THAT(BrokenSupport("[\"gfx906\"]", "\"gfx906\""),
              HasSubstr("'deprecated' must be an array of strings, not a string"));
  EXPECT_THAT(BrokenSupport("[\"gfx906\"]", "[906]"), HasSubstr("'deprecated' must hold strings, not an integer"));
  EXPECT_THAT(BrokenSupport("source = \"b\"", "note = \"b\""), HasSubstr("release '6.1': no source"));
  EXPECT_THAT(BrokenSupport("supported = [\"gfx1030\"]\n", "supported = []\n"), HasSubstr("supported is empty"));
  EXPECT_THAT(BrokenSupport("[[release]]\nversion = \"6.0\"", "[release]\nversion = \"6.0\""), HasSubstr("t.toml"));
  EXPECT_THAT(BrokenSupport("version = \"6.0\"", "version = \"6.0\"\nversion = \"6.1\""), HasSubstr("t.toml"));
}

}  // namespace
}  // namespace rocmtune::knowledge
