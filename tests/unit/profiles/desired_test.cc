// DesiredState: what a built-in profile asks for on a machine, and why items are left out.
#include "profiles/desired.h"

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "profile_worlds.h"
#include "profiles/profile_store.h"

namespace rocmtune::profiles {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TestTree;
using testworlds::LoadedWorld;

Profile Builtin(const sys::Root& root, std::string_view name) {
  auto p = ProfileStore::Load(root).Resolve(name);
  EXPECT_TRUE(p) << name;
  return *p;
}

std::vector<std::string> SetTexts(const Desired& d) {
  std::vector<std::string> out;
  for (const auto& a : d.request.set) out.push_back(a.key.Text() + "=" + a.value);
  return out;
}

std::vector<std::string> UnsetTexts(const Desired& d) {
  std::vector<std::string> out;
  for (const auto& k : d.request.unset) out.push_back(k.Text());
  return out;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::string NoteText(const Desired& d) {
  std::string out;
  for (const auto& n : d.notes) out += n.message + " [" + n.source + "]\n";
  return out;
}

TEST(DesiredTest, StrixHaloComputesTheGttLimit) {
  TestTree t;
  LoadedWorld w(testworlds::MakeStrixHalo(t, testworlds::kMeminfo128, false));
  ASSERT_EQ(w.inventory.gpus.size(), 1u);
  ASSERT_EQ(w.inventory.gpus[0].gfx_target, "gfx1151");
  auto d = DesiredState(Builtin(w.root, "strix-halo"), w.root, w.inventory, {});
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_FALSE(d->reset);
  // pages_limit and page_pool_size together, as the catalog says.
  EXPECT_THAT(SetTexts(*d), ElementsAre("ttm.pages_limit=28835840", "ttm.page_pool_size=28835840"));
  EXPECT_THAT(UnsetTexts(*d), ElementsAre("amdgpu.gttsize", "env.HSA_OVERRIDE_GFX_VERSION"));
  EXPECT_TRUE(d->refused.empty());
  EXPECT_EQ(d->notes.size(), 2u);
  EXPECT_THAT(NoteText(*d), HasSubstr("UMA frame buffer"));
  EXPECT_THAT(Joined(d->skipped), HasSubstr("sh-ttm-cmdline: optional; add --with sh-ttm-cmdline"));
  EXPECT_THAT(Joined(d->skipped), HasSubstr("sh-amd-iommu-off: optional; add --with sh-amd-iommu-off"));
}

TEST(DesiredTest, AmdttmReplacesTtmUnderDkms) {
  TestTree t;
  LoadedWorld w(testworlds::MakeStrixHalo(t, testworlds::kMeminfo128, true));
  auto d = DesiredState(Builtin(w.root, "strix-halo"), w.root, w.inventory, {"sh-ttm-cmdline"});
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_THAT(SetTexts(*d), ElementsAre("amdttm.pages_limit=28835840", "amdttm.page_pool_size=28835840",
                                        "cmdline.amdttm.pages_limit=28835840"));
  EXPECT_THAT(NoteText(*d), HasSubstr("ttm.pages_limit is set as amdttm.pages_limit"));
}

TEST(DesiredTest, UnknownMemTotalRefusesTheItem) {
  TestTree t;
  LoadedWorld w(testworlds::MakeStrixHalo(t, std::nullopt, false));
  auto d = DesiredState(Builtin(w.root, "strix-halo"), w.root, w.inventory, {});
  ASSERT_TRUE(d) << d.error().message;
  ASSERT_EQ(d->refused.size(), 2u);
  EXPECT_EQ(d->refused[0].key, "ttm.pages_limit");
  EXPECT_THAT(d->refused[0].message, HasSubstr("item 'sh-ttm-pages-limit'"));
  EXPECT_THAT(d->refused[0].message, HasSubstr("proc/meminfo"));
  EXPECT_EQ(d->refused[1].key, "ttm.page_pool_size");
  EXPECT_THAT(d->refused[1].message, HasSubstr("item 'sh-ttm-page-pool-size'"));
  EXPECT_TRUE(SetTexts(*d).empty());
}

TEST(DesiredTest, SmallMachineSkipsTheGttLimit) {
  TestTree t;
  LoadedWorld w(testworlds::MakeStrixHalo(t, "MemTotal: 15000000 kB\n", false));
  auto d = DesiredState(Builtin(w.root, "strix-halo"), w.root, w.inventory, {});
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_TRUE(d->refused.empty());
  EXPECT_TRUE(SetTexts(*d).empty());
  EXPECT_THAT(Joined(d->skipped), HasSubstr("sh-ttm-pages-limit: MemTotal is 14 GiB"));
  EXPECT_THAT(Joined(d->skipped), HasSubstr("sh-ttm-page-pool-size: MemTotal is 14 GiB"));
}

TEST(DesiredTest, OptionalItemsOnlyWhenAskedFor) {
  TestTree t;
  LoadedWorld w(testworlds::MakeStrixHalo(t, testworlds::kMeminfo128, false));
  Profile p = Builtin(w.root, "strix-halo");
  auto d = DesiredState(p, w.root, w.inventory, {"sh-amd-iommu-off"});
  ASSERT_TRUE(d);
  EXPECT_THAT(SetTexts(*d),
              ElementsAre("ttm.pages_limit=28835840", "ttm.page_pool_size=28835840", "cmdline.amd_iommu=off"));
  EXPECT_THAT(Joined(d->skipped), ::testing::Not(HasSubstr("sh-amd-iommu-off")));

  auto unknown = DesiredState(p, w.root, w.inventory, {"nope"});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(unknown.error().message,
              HasSubstr("profile 'strix-halo' has no item 'nope' (optional items: sh-ttm-cmdline, sh-amd-iommu-off)"));
  auto not_optional = DesiredState(p, w.root, w.inventory, {"sh-unset-override"});
  ASSERT_FALSE(not_optional);
  EXPECT_THAT(not_optional.error().message, HasSubstr("'sh-unset-override' of profile 'strix-halo' is not optional"));
}

TEST(DesiredTest, Rdna2OverrideOnlyWhereItHelps) {
  LoadedWorld rx6600(testworlds::WorldPath("rx6600"));
  auto d = DesiredState(Builtin(rx6600.root, "rdna2-consumer-compat"), rx6600.root, rx6600.inventory, {});
  ASSERT_TRUE(d);
  EXPECT_THAT(SetTexts(*d), ElementsAre("env.HSA_OVERRIDE_GFX_VERSION=10.3.0"));
  EXPECT_TRUE(UnsetTexts(*d).empty());
  EXPECT_THAT(Joined(d->skipped),
              HasSubstr("rdna2-no-override-on-gfx1030: not every GPU is gfx1030 (gfx1032 on 0000:12:00.0)"));
  EXPECT_THAT(NoteText(*d), HasSubstr("MEC firmware is >= 92"));  // a dGPU: the atomics note applies

  // gfx1030 is native: the later unset wins over the override.
  LoadedWorld rx6900(testworlds::WorldPath("rx6900xt"));
  auto native = DesiredState(Builtin(rx6900.root, "rdna2-consumer-compat"), rx6900.root, rx6900.inventory, {});
  ASSERT_TRUE(native);
  EXPECT_TRUE(SetTexts(*native).empty());
  EXPECT_THAT(UnsetTexts(*native), ElementsAre("env.HSA_OVERRIDE_GFX_VERSION"));
  EXPECT_THAT(Joined(native->skipped),
              HasSubstr("rdna2-override: superseded by item 'rdna2-no-override-on-gfx1030' on the same key"));

  // The Steam Deck is an APU: no PCIe atomics advice.
  LoadedWorld deck(testworlds::WorldPath("vangogh"));
  auto apu = DesiredState(Builtin(deck.root, "rdna2-consumer-compat"), deck.root, deck.inventory, {});
  ASSERT_TRUE(apu);
  EXPECT_THAT(Joined(apu->skipped), HasSubstr("rdna2-pcie-atomics: no GPU is a dGPU (this machine: gfx1033 APU)"));
  EXPECT_THAT(NoteText(*apu), ::testing::Not(HasSubstr("MEC firmware")));
}

TEST(DesiredTest, Rdna1UnsetsTheOverrideAndExplains) {
  LoadedWorld w(testworlds::WorldPath("rx5700xt"));
  auto d = DesiredState(Builtin(w.root, "rdna1-safe"), w.root, w.inventory, {});
  ASSERT_TRUE(d);
  EXPECT_TRUE(SetTexts(*d).empty());
  EXPECT_THAT(UnsetTexts(*d), ElementsAre("env.HSA_OVERRIDE_GFX_VERSION"));
  EXPECT_EQ(d->notes.size(), 4u);
  EXPECT_THAT(NoteText(*d), HasSubstr("rocmtunectl explain amdgpu.mtype_local"));
  EXPECT_THAT(NoteText(*d), HasSubstr("MEC firmware is >= 145"));
  EXPECT_THAT(NoteText(*d), HasSubstr("render (and video) groups"));
  EXPECT_TRUE(d->skipped.empty());
}

TEST(DesiredTest, StockIsAReset) {
  LoadedWorld w(testworlds::WorldPath("no-amd"));
  auto d = DesiredState(Builtin(w.root, "stock"), w.root, w.inventory, {});
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->reset);
  EXPECT_TRUE(d->request.set.empty());
  EXPECT_TRUE(d->request.unset.empty());
  EXPECT_TRUE(d->notes.empty());
}

TEST(DesiredTest, InstinctLimitsPciReallocToMi300) {
  LoadedWorld mi210(testworlds::WorldPath("mi210x8"));
  auto d = DesiredState(Builtin(mi210.root, "instinct"), mi210.root, mi210.inventory, {});
  ASSERT_TRUE(d);
  EXPECT_THAT(SetTexts(*d), ElementsAre("cmdline.iommu=pt"));
  EXPECT_THAT(Joined(d->skipped), HasSubstr("mi-pci-realloc-off: no GPU is gfx942 (this machine: gfx90a)"));
  LoadedWorld mi300(testworlds::WorldPath("mi300x-cpx"));
  auto d300 = DesiredState(Builtin(mi300.root, "instinct"), mi300.root, mi300.inventory, {"mi-intel-iommu-on"});
  ASSERT_TRUE(d300);
  EXPECT_THAT(SetTexts(*d300), ElementsAre("cmdline.iommu=pt", "cmdline.intel_iommu=on", "cmdline.pci=realloc=off"));
}

}  // namespace
}  // namespace rocmtune::profiles
