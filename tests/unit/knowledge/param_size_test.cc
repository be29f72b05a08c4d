// Size parameters in the catalog: units, auto sentinels and bytes (knowledge/param_size.h).
#include "knowledge/param_size.h"

#include <gtest/gtest.h>

namespace rocmtune::knowledge {
namespace {

const ModuleParam& Param(std::string_view module, std::string_view name) {
  const ModuleParam* p = Catalog::Builtin().Find(module, name);
  EXPECT_NE(p, nullptr) << module << "." << name;
  return *p;
}

TEST(ParamSizeTest, UnitsFromTheCatalog) {
  EXPECT_EQ(Param("ttm", "pages_limit").unit, SizeUnit::kPage);
  EXPECT_EQ(Param("amdttm", "page_pool_size").unit, SizeUnit::kPage);
  EXPECT_EQ(Param("ttm", "dma32_pages_limit").unit, SizeUnit::kPage);
  EXPECT_EQ(Param("amdgpu", "gttsize").unit, SizeUnit::kMib);
  EXPECT_FALSE(Param("amdgpu", "noretry").unit);
  EXPECT_EQ(UnitBytes(SizeUnit::kPage), 4096u);
  EXPECT_EQ(UnitBytes(SizeUnit::kMib), 1048576u);
}

TEST(ParamSizeTest, SizesAndSentinels) {
  const ModuleParam& pages = Param("ttm", "pages_limit");
  EXPECT_EQ(SizeBytes(pages, "3047936"), 3047936ULL * 4096);
  EXPECT_EQ(SizeOf(pages, "0")->kind, ParamSize::Kind::kAuto);
  EXPECT_FALSE(SizeBytes(pages, "0"));
  EXPECT_EQ(SizeOf(pages, "18446744073709551615")->kind, ParamSize::Kind::kOverflow);
  EXPECT_FALSE(SizeOf(pages, "18446744073709551616")) << "not a 64-bit number";
  EXPECT_FALSE(SizeOf(pages, "12 GiB"));
  const ModuleParam& gtt = Param("amdgpu", "gttsize");
  EXPECT_EQ(SizeOf(gtt, "-1")->kind, ParamSize::Kind::kAuto);
  EXPECT_EQ(SizeOf(gtt, "-7")->kind, ParamSize::Kind::kNegative);
  EXPECT_EQ(SizeBytes(gtt, "0"), 0u);
  EXPECT_EQ(SizeBytes(gtt, "8192"), 8ULL << 30);
  EXPECT_FALSE(SizeOf(Param("amdgpu", "noretry"), "1"));
}

}  // namespace
}  // namespace rocmtune::knowledge
