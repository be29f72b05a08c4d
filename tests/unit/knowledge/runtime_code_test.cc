// The shipped runtime code table (data/runtime_code.toml): every build has a source and known
// targets and ascends within its kind; Find picks a build by major.minor; the facts the table was
// checked for hold (RDNA1 and gfx1031 absent from PyTorch's wheels, gfx1010 in AMD's rocBLAS
// Tensile library from 6.2, native RDNA1/RDNA2 in TheRock 7.14); the parser refuses bad input.
#include "knowledge/runtime_code.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "edited.h"

namespace rocmtune::knowledge {
namespace {

using ::testing::HasSubstr;

TEST(RuntimeCodeTest, EveryShippedBuildHasASourceAndKnownTargets) {
  const RuntimeCode& table = RuntimeCode::Builtin();
  ASSERT_GE(table.builds().size(), 15u);
  for (const CodeBuild& b : table.builds()) {
    SCOPED_TRACE(b.kind + " " + b.version);
    EXPECT_FALSE(b.source.empty());
    EXPECT_FALSE(b.targets.empty());
    EXPECT_EQ(b.rocm.has_value(), b.kind == "pytorch");
    for (const std::string& gfx : b.targets) EXPECT_NE(GfxTargetTable::Builtin().ByName(gfx), nullptr) << gfx;
  }
}

TEST(RuntimeCodeTest, FindMatchesByMajorMinor) {
  const RuntimeCode& table = RuntimeCode::Builtin();
  const CodeBuild* b = table.Find("rocm", "6.2.4");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->version, "6.2");
  b = table.Find("pytorch", "2.4.1", "6.1");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->version, "2.4");
  EXPECT_EQ(b->rocm, "6.1");
  b = table.Find("pytorch", "2.3.0", "6.0.2");  // rocm by major.minor
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->rocm, "6.0");
  b = table.Find("pytorch", "2.3.1");  // no rocm: the first wheel of that minor
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->rocm, "5.7");
  b = table.Find("therock", "7.14.0a20260609");  // a TheRock nightly version
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->version, "7.14");
  EXPECT_EQ(table.Find("pytorch", "2.4.1", "6.2"), nullptr);  // no such wheel
  EXPECT_EQ(table.Find("rocm", "6.20"), nullptr);             // 6.20 is not 6.2
  EXPECT_EQ(table.Find("rocm", "5.6.1"), nullptr);
  EXPECT_EQ(table.Find("rocm", "not-a-version"), nullptr);
  EXPECT_EQ(table.Find("cuda", "6.2"), nullptr);
}

TEST(RuntimeCodeTest, KnownFactsHold) {
  const RuntimeCode& table = RuntimeCode::Builtin();
  // PyTorch's official wheels carry neither RDNA1 nor gfx1031/gfx1036.
  for (const CodeBuild& b : table.builds()) {
    if (b.kind != "pytorch") continue;
    for (const char* gfx : {"gfx1010", "gfx1011", "gfx1012", "gfx1031", "gfx1036"})
      EXPECT_FALSE(b.Carries(gfx)) << b.version << "+rocm" << *b.rocm << " " << gfx;
    EXPECT_TRUE(b.Carries("gfx1030"));
  }
  // AMD's rocBLAS Tensile library: gfx1010/gfx1012 from 6.2 (Tensile's fallback libraries), never
  // gfx1011 or gfx1031 ("Cannot read TensileLibrary.dat ... for GPU arch : gfx1031").
  EXPECT_FALSE(table.Find("rocm", "6.1.2")->Carries("gfx1010"));
  for (const char* v : {"6.2", "6.3", "6.4", "7.0", "7.1", "7.2"}) {
    const CodeBuild* b = table.Find("rocm", v);
    ASSERT_NE(b, nullptr) << v;
    EXPECT_TRUE(b->Carries("gfx1010")) << v;
    EXPECT_TRUE(b->Carries("gfx1012")) << v;
    EXPECT_FALSE(b->Carries("gfx1011")) << v;
    EXPECT_FALSE(b->Carries("gfx1031")) << v;
  }
  // TheRock 7.14 ships device packages for every RDNA1 and RDNA2 target.
  const CodeBuild* rock = table.Find("therock", "7.14");
  ASSERT_NE(rock, nullptr);
  for (const char* gfx : {"gfx1010", "gfx1011", "gfx1012", "gfx1031", "gfx1036"})
    EXPECT_TRUE(rock->Carries(gfx)) << gfx;
}

constexpr std::string_view kValid = R"(schema_version = 1
[[build]]
kind = "pytorch"
version = "2.4"
rocm = "6.0"
targets = ["gfx1030"]
source = "a"
[[build]]
kind = "pytorch"
version = "2.4"
rocm = "6.1"
targets = ["gfx1030", "gfx1100"]
source = "b"
[[build]]
kind = "rocm"
version = "6.2"
targets = ["gfx1010"]
source = "c"
)";

std::string Broken(std::string_view from, std::string_view to) {
  auto parsed = RuntimeCode::Parse(rocmtune::testing::Edited(kValid, from, to));
  return parsed ? "" : parsed.error().message;
}

TEST(RuntimeCodeTest, ParsesAValidTable) {
  auto parsed = RuntimeCode::Parse(kValid);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->builds().size(), 3u);
  EXPECT_EQ(parsed->Find("pytorch", "2.4.0", "6.1")->source, "b");
  EXPECT_EQ(parsed->Find("rocm", "6.2.1")->source, "c");
}

TEST(RuntimeCodeTest, RefusesBadInputWithAClearError) {
  EXPECT_THAT(Broken("source = \"c\"", "source = \"c\"\ntarget = [\"gfx1030\"]"),
              HasSubstr("[[build]] #3 (rocm 6.2): unknown key 'target'"));
  EXPECT_THAT(Broken("schema_version = 1", "schema_version = 2"), HasSubstr("schema_version must be 1"));
  EXPECT_THAT(Broken("kind = \"rocm\"", "kind = \"cuda\""), HasSubstr("kind 'cuda' is not one of"));
  EXPECT_THAT(Broken("version = \"6.2\"", "version = \"6.2.1\""), HasSubstr("must be a release line"));
  EXPECT_THAT(Broken("rocm = \"6.1\"", "rocm = \"6.1.x\""), HasSubstr("rocm '6.1.x' must be a release line"));
  EXPECT_THAT(Broken("rocm = \"6.0\"\n", ""), HasSubstr("a pytorch build needs rocm"));
  EXPECT_THAT(Broken("version = \"6.2\"", "version = \"6.2\"\nrocm = \"6.2\""), HasSubstr("for pytorch builds only"));
  EXPECT_THAT(Broken("[\"gfx1010\"]", "[\"gfx9999\"]"), HasSubstr("'gfx9999', which is not in gfx_targets.toml"));
  EXPECT_THAT(Broken("[\"gfx1010\"]", "[\"gfx1010\", \"gfx1010\"]"), HasSubstr("'gfx1010' appears twice"));
  EXPECT_THAT(Broken("[\"gfx1010\"]", "[]"), HasSubstr("no targets"));
  EXPECT_THAT(Broken("source = \"c\"", "note = \"c\""), HasSubstr("(rocm 6.2): no source"));
  EXPECT_THAT(Broken("rocm = \"6.1\"", "rocm = \"6.0\""), HasSubstr("does not come after pytorch 2.4+rocm6.0"));
  EXPECT_THAT(Broken("version = \"2.4\"\nrocm = \"6.1\"", "version = \"2.3\"\nrocm = \"6.1\""),
              HasSubstr("does not come after"));
}

}  // namespace
}  // namespace rocmtune::knowledge
