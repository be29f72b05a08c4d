// The built-in tables come from code rocmtune-knowledge-gen generated at build time
// (knowledge/builtin_data.h), not from parsing TOML at start: each must equal, record for record
// and field for field (the records' defaulted operator==), what its own loader makes of the data
// file the build read.
#include <gtest/gtest.h>

#include "edited.h"
#include "embedded_data.h"
#include "knowledge/amdgpu_ids.h"
#include "knowledge/catalog.h"
#include "knowledge/env_vars.h"
#include "knowledge/gfx_targets.h"
#include "knowledge/gpu_table.h"
#include "knowledge/kernel_options.h"
#include "knowledge/known_issues.h"
#include "knowledge/rocm_support.h"
#include "knowledge/runtime_code.h"

namespace rocmtune::knowledge {
namespace {

template <typename T>
void ExpectSameAsParsed(const T& builtin, const Result<T>& parsed) {
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_TRUE(builtin == *parsed);
}

TEST(BuiltinData, EveryTableEqualsItsParsedFile) {
  ExpectSameAsParsed(AmdgpuIds::Builtin(), AmdgpuIds::Parse(embedded::kAmdgpuIds, "data/amdgpu.ids"));
  ExpectSameAsParsed(Catalog::Builtin(), Catalog::Parse(embedded::kCatalogToml, "data/catalog.toml"));
  ExpectSameAsParsed(EnvVars::Builtin(), EnvVars::Parse(embedded::kEnvVarsToml, "data/env_vars.toml"));
  ExpectSameAsParsed(GfxTargetTable::Builtin(),
                     GfxTargetTable::Parse(embedded::kGfxTargetsToml, "data/gfx_targets.toml"));
  ExpectSameAsParsed(GpuTable::Builtin(), GpuTable::Parse(embedded::kGpusToml, "data/gpus.toml"));
  ExpectSameAsParsed(KernelOptions::Builtin(),
                     KernelOptions::Parse(embedded::kKernelOptionsToml, "data/kernel_options.toml"));
  ExpectSameAsParsed(KnownIssues::Builtin(), KnownIssues::Parse(embedded::kKnownIssuesToml, "data/known_issues.toml"));
  const GfxTargetTable& targets = GfxTargetTable::Builtin();
  ExpectSameAsParsed(RocmSupport::Builtin(),
                     RocmSupport::Parse(embedded::kRocmSupportToml, "data/rocm_support.toml", targets));
  ExpectSameAsParsed(RuntimeCode::Builtin(),
                     RuntimeCode::Parse(embedded::kRuntimeCodeToml, "data/runtime_code.toml", targets));
}

// The comparison above sees one field of one record: a file that differs from the build's in a
// single value is not equal to the built-in table.
TEST(BuiltinData, OneChangedValueIsNotEqual) {
  auto catalog =
      Catalog::Parse(testing::Edited(embedded::kCatalogToml, "runtime_writable = false", "runtime_writable = true"),
                     "data/catalog.toml");
  ASSERT_TRUE(catalog) << catalog.error().message;
  EXPECT_FALSE(Catalog::Builtin() == *catalog);
  auto issues =
      KnownIssues::Parse(testing::Edited(embedded::kKnownIssuesToml, "confidence = \"high\"", "confidence = \"low\""),
                         "data/known_issues.toml");
  ASSERT_TRUE(issues) << issues.error().message;
  EXPECT_FALSE(KnownIssues::Builtin() == *issues);
}

// Each table is built once and kept: every call returns the same object.
TEST(BuiltinData, TablesAreBuiltOnce) {
  EXPECT_EQ(&Catalog::Builtin(), &Catalog::Builtin());
  EXPECT_EQ(&KnownIssues::Builtin(), &KnownIssues::Builtin());
  EXPECT_GT(Catalog::Builtin().params().size(), 50u);
  EXPECT_GT(AmdgpuIds::Builtin().size(), 500u);
}

}  // namespace
}  // namespace rocmtune::knowledge
