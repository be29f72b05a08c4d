#include "program/visible.h"

#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_tree.h"

namespace rocmtune::program {
namespace {

using Ids = std::vector<std::string>;

constexpr uint64_t kUuidA = 0x00ab12cd34ef5678;

// An iGPU and a dGPU listed in PCI order; KFD numbered the dGPU first (node 1, node 2 the APU).
// A third GPU has no KFD node (amdgpu bound, no compute).
detect::Inventory ThreeGpus() {
  detect::Inventory inv;
  detect::Gpu apu;
  apu.id = "0000:03:00.0";
  apu.kfd_node = 2;
  apu.kfd_unique_id = 0;
  detect::Gpu dgpu;
  dgpu.id = "0000:c4:00.0";
  dgpu.kfd_node = 1;
  dgpu.kfd_unique_id = kUuidA;
  detect::Gpu no_kfd;
  no_kfd.id = "0000:05:00.0";
  inv.gpus = {apu, no_kfd, dgpu};
  return inv;
}

const std::string kDgpu = "0000:c4:00.0";
const std::string kApu = "0000:03:00.0";

TEST(VisibleGpusTest, KfdOrderWithoutVariables) {
  Visibility v = VisibleGpus(ThreeGpus(), {});
  EXPECT_EQ(v.rocr_order, (Ids{kDgpu, kApu}));
  EXPECT_EQ(v.hip_order, (Ids{kDgpu, kApu}));
  EXPECT_FALSE(v.Sees("0000:05:00.0"));  // no KFD node: never visible
  EXPECT_EQ(v.HipIndex(kApu), 1);
  EXPECT_TRUE(v.problems.empty());
}

TEST(VisibleGpusTest, RocrVisibleDevicesByIndexAndUuid) {
  const std::vector<std::tuple<std::string, Ids, size_t>> cases = {
      {"1", {kApu}, 0},
      {"", {}, 0},                           // set but empty: no GPU
      {"-1", {}, 1},                         // the documented "use the CPU"
      {"1,0,5", {kApu, kDgpu}, 1},           // only as many entries as GPUs are read
      {"0,0", {kDgpu}, 1},                   // a GPU chosen twice ends the list
      {"0x1", {kApu}, 0},                    // strtol base 0
      {" 1 ", {kApu}, 0},                    // trimmed
      {"1x", {}, 1},                         // not a number
      {"GPU-00AB12CD", {kDgpu}, 0},          // a UUID prefix of "GPU-%016llX"
      {"gpu-00ab12cd34ef5678", {kDgpu}, 0},  // upper-cased first
      {"GPU-XX", {}, 1},                     // the GPU without a UUID cannot be named by one
      {"GPU-", {}, 1},                       // shorter than 5
      {"1,,0", {kApu}, 1},                   // an empty entry: ROCr's parser throws
  };
  for (const auto& [value, want, problems] : cases) {
    Visibility v = VisibleGpus(ThreeGpus(), {{"ROCR_VISIBLE_DEVICES", value}});
    EXPECT_EQ(v.rocr_order, want) << "ROCR_VISIBLE_DEVICES=" << value;
    EXPECT_EQ(v.hip_order, want) << "ROCR_VISIBLE_DEVICES=" << value;
    EXPECT_EQ(v.problems.size(), problems) << "ROCR_VISIBLE_DEVICES=" << value;
  }
}

TEST(VisibleGpusTest, HipVisibleDevicesPicksFromWhatRocrLeft) {
  using VisEnv = std::map<std::string, std::string>;
  const std::vector<std::tuple<VisEnv, Ids, size_t>> cases = {
      {{{"ROCR_VISIBLE_DEVICES", "1,0"}, {"HIP_VISIBLE_DEVICES", "1"}}, {kDgpu}, 0},
      {{{"HIP_VISIBLE_DEVICES", "1,0,1"}}, {kApu, kDgpu}, 0},                     // a repeat is skipped
      {{{"HIP_VISIBLE_DEVICES", "0,5,1"}}, {kDgpu}, 1},                           // 5 ends the list
      {{{"HIP_VISIBLE_DEVICES", " 1"}}, {}, 1},                                   // must read as to_string
      {{{"HIP_VISIBLE_DEVICES", ""}, {"CUDA_VISIBLE_DEVICES", "1"}}, {kApu}, 0},  // empty HIP: CUDA's
      {{{"HIP_VISIBLE_DEVICES", "0"}, {"CUDA_VISIBLE_DEVICES", "1"}}, {kDgpu}, 0},
      {{{"HIP_VISIBLE_DEVICES", "GPU-00ab12cd"}}, {kDgpu}, 0},                 // substring of the agent UUID
      {{{"HIP_VISIBLE_DEVICES", "GPU-00AB12CD"}}, {}, 1},                      // case-sensitive, unlike ROCr
      {{{"HIP_VISIBLE_DEVICES", "GPU-XX"}}, {kApu}, 0},                        // the UUID-less GPU's "GPU-XX"
      {{{"ROCR_VISIBLE_DEVICES", "1"}, {"HIP_VISIBLE_DEVICES", "1"}}, {}, 1},  // ROCr left one GPU
  };
  for (const auto& [env, want, problems] : cases) {
    Visibility v = VisibleGpus(ThreeGpus(), env);
    std::string shown;
    for (const auto& [k, val] : env) shown += k + "=" + val + " ";
    EXPECT_EQ(v.hip_order, want) << shown;
    EXPECT_EQ(v.problems.size(), problems) << shown;
  }
}

TEST(VisibleGpusTest, OverrideForPerNodeAndGlobal) {
  const detect::Inventory inv = ThreeGpus();
  const detect::Gpu& apu = inv.gpus[0];
  const detect::Gpu& no_kfd = inv.gpus[1];
  const detect::Gpu& dgpu = inv.gpus[2];
  std::map<std::string, std::string> env = {{"HSA_OVERRIDE_GFX_VERSION", "10.3.0"},
                                            {"HSA_OVERRIDE_GFX_VERSION_2", "11.0.2"}};
  auto d = OverrideFor(inv, dgpu, env);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->variable, "HSA_OVERRIDE_GFX_VERSION");
  EXPECT_EQ(d->gfx, "gfx1030");
  auto a = OverrideFor(inv, apu, env);  // KFD node 2
  ASSERT_TRUE(a);
  EXPECT_EQ(a->variable, "HSA_OVERRIDE_GFX_VERSION_2");
  EXPECT_EQ(a->gfx, "gfx1102");
  EXPECT_FALSE(OverrideFor(inv, no_kfd, env));
  EXPECT_FALSE(OverrideFor(inv, dgpu, {}));
  const std::vector<std::pair<std::string, std::optional<std::string>>> values = {
      {"9.0.10", "gfx90a"},      {" 9.0.6", "gfx906"},      {"+11.0.0", "gfx1100"},
      {"10.3.0 ", std::nullopt},  // "%c" takes the space: 4 conversions, rejected
      {"10.3", std::nullopt},    {"64.0.0", std::nullopt},  {"10.256.0", std::nullopt},
      {"-1.0.0", std::nullopt},  {"gfx1030", std::nullopt}, {"", std::nullopt}};
  for (const auto& [value, gfx] : values) {
    auto o = OverrideFor(inv, dgpu, {{"HSA_OVERRIDE_GFX_VERSION", value}});
    ASSERT_TRUE(o) << value;
    EXPECT_EQ(o->gfx, gfx) << '"' << value << '"';
  }
}

// A real capture: phoenix's APU (KFD node 1, no UUID) and a Vega 10's KFD node copied from mi25
// as node 2. Detection gives both with their nodes and unique_id; ROCR picks the dGPU by UUID.
TEST(VisibleGpusTest, TwoGpuWorldFromCaptures) {
  namespace fs = std::filesystem;
  testing::TestTree t;
  testing::CopyTree(std::string(ROCMTUNE_WORLDS_DIR) + "/phoenix", t.Path("root"));
  const std::string nodes = "root/sys/class/kfd/kfd/topology/nodes";
  testing::CopyTree(std::string(ROCMTUNE_WORLDS_DIR) + "/mi25/sys/class/kfd/kfd/topology/nodes/1",
                    t.Path(nodes + "/2"));
  auto root = sys::Root::Open(t.Path("root"));
  ASSERT_TRUE(root);
  detect::DetectOptions options;
  options.use_libdrm = false;
  detect::Inventory inv = detect::Detect(*root, options);
  std::vector<const detect::Gpu*> kfd;
  for (const detect::Gpu& g : inv.gpus)
    if (g.kfd_node) kfd.push_back(&g);
  ASSERT_EQ(kfd.size(), 2u);
  const detect::Gpu* vega = *kfd[0]->kfd_node == 2 ? kfd[0] : kfd[1];
  const detect::Gpu* apu = vega == kfd[0] ? kfd[1] : kfd[0];
  ASSERT_TRUE(vega->kfd_unique_id);
  EXPECT_EQ(*vega->kfd_unique_id, 14073402507705256556ull);
  Visibility all = VisibleGpus(inv, {});
  EXPECT_EQ(all.rocr_order, (Ids{apu->id, vega->id}));
  const std::string uuid = fmt::format("GPU-{:016X}", *vega->kfd_unique_id);
  Visibility by_uuid = VisibleGpus(inv, {{"ROCR_VISIBLE_DEVICES", uuid}});
  EXPECT_EQ(by_uuid.hip_order, Ids{vega->id});
  EXPECT_EQ(by_uuid.HipIndex(vega->id), 0);
  auto per_node =
      OverrideFor(inv, *vega, {{"HSA_OVERRIDE_GFX_VERSION_2", "9.0.0"}, {"HSA_OVERRIDE_GFX_VERSION", "11.0.0"}});
  ASSERT_TRUE(per_node);
  EXPECT_EQ(per_node->gfx, "gfx900");
  EXPECT_EQ(OverrideFor(inv, *apu, {{"HSA_OVERRIDE_GFX_VERSION_2", "9.0.0"}}), std::nullopt);
}

}  // namespace
}  // namespace rocmtune::program
