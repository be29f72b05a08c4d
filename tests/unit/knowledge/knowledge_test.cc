#include <set>

#include <gtest/gtest.h>

#include "knowledge/amdgpu_ids.h"
#include "knowledge/catalog.h"
#include "knowledge/env_vars.h"
#include "knowledge/gfx_targets.h"
#include "knowledge/gpu_table.h"
#include "knowledge/kernel_options.h"

namespace rocmtune::knowledge {
namespace {

TEST(GfxNameTest, MinorAndSteppingAreHexDigits) {
  EXPECT_EQ(GfxNameFromVersion(90010), "gfx90a");
  EXPECT_EQ(GfxNameFromVersion(90012), "gfx90c");
  EXPECT_EQ(GfxNameFromVersion(90402), "gfx942");
  EXPECT_EQ(GfxNameFromVersion(100300), "gfx1030");
  EXPECT_EQ(GfxNameFromVersion(110501), "gfx1151");
  EXPECT_EQ(GfxNameFromVersion(80003), "gfx803");
}

TEST(GfxTargetTableTest, BuiltinIsConsistent) {
  const auto& table = GfxTargetTable::Builtin();
  ASSERT_GE(table.targets().size(), 30u);
  std::set<uint32_t> versions;
  for (const GfxTarget& t : table.targets()) {
    EXPECT_EQ(t.name, GfxNameFromVersion(t.version)) << t.version;
    EXPECT_TRUE(versions.insert(t.version).second) << "duplicate " << t.version;
    EXPECT_FALSE(t.source.empty()) << t.name << " has no source";
  }
}

TEST(GfxTargetTableTest, GcIpDivergesFromIsaName) {
  const auto& table = GfxTargetTable::Builtin();
  // kfd_device.c: GC 11.0.3 is gfx1101, GC 10.3.4 is gfx1032 — never concatenate.
  auto n32 = table.ByGcIp("11.0.3");
  ASSERT_EQ(n32.size(), 1u);
  EXPECT_EQ(n32[0]->name, "gfx1101");
  auto navi23 = table.ByGcIp("10.3.4");
  ASSERT_EQ(navi23.size(), 1u);
  EXPECT_EQ(navi23[0]->name, "gfx1032");
  // GC 9.4.3 maps to three targets by silicon revision: ambiguous without KFD.
  EXPECT_GT(table.ByGcIp("9.4.3").size(), 1u);
  ASSERT_NE(table.ByName("gfx942"), nullptr);
  EXPECT_FALSE(table.ByName("gfx942")->apu.has_value());     // MI300A and MI300X
  EXPECT_FALSE(table.ByName("gfx803")->family.has_value());  // Fiji GCN3, Polaris GCN4
}

TEST(GpuTableTest, BuiltinHasUniqueIdsAndAgreesWithTargets) {
  const auto& gpus = GpuTable::Builtin();
  const auto& targets = GfxTargetTable::Builtin();
  std::set<uint16_t> ids;
  for (const GpuModel& m : gpus.models()) {
    for (uint16_t id : m.pci_ids) EXPECT_TRUE(ids.insert(id).second) << std::hex << id << " twice";
    EXPECT_FALSE(m.source.empty()) << m.product;
    if (m.gfx_target_version) {
      const GfxTarget* t = targets.ByVersion(*m.gfx_target_version);
      ASSERT_NE(t, nullptr) << m.product;
      EXPECT_EQ(m.gfx_target, t->name) << m.product;
      if (t->family && m.family) {
        EXPECT_EQ(*t->family, *m.family) << m.product;
      }
    }
  }
  const GpuModel* polaris = gpus.ByDeviceId(0x67df);
  ASSERT_NE(polaris, nullptr);
  EXPECT_EQ(polaris->family, Family::kGcn4);
  EXPECT_EQ(gpus.ByDeviceId(0x0001), nullptr);
}

TEST(AmdgpuIdsTest, ParsesLibdrmFormat) {
  auto ids = AmdgpuIds::Parse(
      "# comment\n1.0.0\n731F,\tC1,\tAMD Radeon RX 5700 XT\n731F,\tC4,\tAMD Radeon RX 5700\n"
      "7481,   C7,     AMD Steam Machine\nbroken line\nZZZZ,\t00,\tbad id\n15BF,\t00,\tAMD Radeon 780M Graphics\n",
      "test");
  ASSERT_TRUE(ids) << ids.error().message;
  EXPECT_EQ(ids->version(), "1.0.0");
  EXPECT_EQ(ids->size(), 4u);
  EXPECT_EQ(ids->Lookup(0x731f, 0xc1), "AMD Radeon RX 5700 XT");
  EXPECT_EQ(ids->Lookup(0x7481, 0xc7), "AMD Steam Machine");  // spaces instead of tabs
  EXPECT_FALSE(ids->Lookup(0x731f, 0xc2));
  EXPECT_FALSE(ids->LookupAnyRevision(0x731f));  // two names: no guess
  EXPECT_EQ(ids->LookupAnyRevision(0x15bf), "AMD Radeon 780M Graphics");
}

TEST(AmdgpuIdsTest, EmptyInputIsAnError) { EXPECT_FALSE(AmdgpuIds::Parse("# nothing\n1.0.0\n", "test")); }

TEST(AmdgpuIdsTest, BuiltinIsTheNewTable) {
  // Debian 12's libdrm (2.4.114) has no RDNA3/RDNA4/MI300 names; the bundled copy must.
  const auto& ids = AmdgpuIds::Builtin();
  EXPECT_EQ(ids.Lookup(0x744c, 0xc8), "AMD Radeon RX 7900 XTX");
  EXPECT_EQ(ids.Lookup(0x7550, 0xc0), "AMD Radeon RX 9070 XT");
  EXPECT_EQ(ids.Lookup(0x74a1, 0x00), "AMD Instinct MI300X");
}

TEST(DataParseTest, BrokenTomlIsAnErrorNotACrash) {
  EXPECT_FALSE(GfxTargetTable::Parse("[[target]\n", "t"));
  EXPECT_FALSE(GfxTargetTable::Parse("[[target]]\ngfx_target = \"gfx1\"\n", "t"));
  EXPECT_FALSE(
      GfxTargetTable::Parse("[[target]]\ngfx_target_version = 1\ngfx_target = \"x\"\nfamily = \"RDNA9\"\n", "t"));
  EXPECT_FALSE(GpuTable::Parse("[[gpu]]\nproduct = \"x\"\npci_ids = [\"12345\"]\n", "t"));
  EXPECT_FALSE(GpuTable::Parse("x = 1\n", "t"));
}

}  // namespace
}  // namespace rocmtune::knowledge

namespace rocmtune::knowledge {
namespace {

// Sources are shown to users: each must be one they can open (kernel source, docs, an upstream
// issue), never a path of the project's development notes.
TEST(KnowledgeSourcesTest, NoSourceCitesTheDevelopmentNotes) {
  std::vector<std::pair<std::string, std::string>> sources;
  for (const auto& v : EnvVars::Builtin().vars()) sources.emplace_back(v.name, v.source);
  for (const auto& v : EnvVars::Builtin().not_read()) sources.emplace_back(v.name, v.source);
  for (const auto& v : EnvVars::Builtin().debug()) sources.emplace_back(v.name, v.source);
  for (const auto& p : Catalog::Builtin().params()) sources.emplace_back(p.module + "." + p.name, p.source);
  for (const auto& o : KernelOptions::Builtin().options()) sources.emplace_back(o.name, o.source);
  ASSERT_GT(sources.size(), 100u);
  for (const auto& [what, source] : sources)
    for (std::string_view note : {"shared/", "research/", "seeds/", "facts/", ".md"})
      EXPECT_EQ(source.find(note), std::string::npos) << what << ": " << source;
}

}  // namespace
}  // namespace rocmtune::knowledge
