#include "detect/inventory.h"

#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_tree.h"

namespace rocmtune::detect {
namespace {

using testing::TestTree;

void AddCard(const TestTree& t, int index, const std::string& slot, const std::string& pci_id, int render_minor) {
  std::string dev = "sys/devices/pci0000:00/" + slot;
  t.Symlink(fmt::format("sys/class/drm/card{}", index),
            fmt::format("../../devices/pci0000:00/{}/drm/card{}", slot, index));
  t.Symlink(fmt::format("{}/drm/card{}/device", dev, index), "../../../" + slot);
  t.Mkdir(fmt::format("{}/drm/renderD{}", dev, render_minor));
  t.Write(dev + "/uevent", fmt::format("DRIVER=amdgpu\nPCI_ID={}\nPCI_SLOT_NAME={}\n", pci_id, slot));
}

void AddNode(const TestTree& t, int node, const std::string& props) {
  t.Write(fmt::format("sys/class/kfd/kfd/topology/nodes/{}/properties", node), props);
  t.Write(fmt::format("sys/class/kfd/kfd/topology/nodes/{}/gpu_id", node), fmt::format("{}\n", 1000 + node));
}

Inventory DetectInventoryTree(const TestTree& t) {
  auto root = sys::Root::Open(t.path());
  EXPECT_TRUE(root);
  return Detect(*root);
}

TEST(InventoryTest, CardAndKfdNodeMatchByRenderNodeWhenAddressesDiffer) {
  TestTree t;
  AddCard(t, 0, "0000:03:00.0", "1002:744C", 128);
  // A VM may show KFD a different location than the guest PCI slot.
  AddNode(t, 1,
          "simd_count 192\ngfx_target_version 110000\nvendor_id 4098\ndevice_id 29772\n"
          "location_id 2048\ndomain 0\ndrm_render_minor 128\n");
  Inventory inv = DetectInventoryTree(t);
  ASSERT_EQ(inv.gpus.size(), 1u);
  EXPECT_EQ(inv.gpus[0].kfd_node, 1);
  EXPECT_EQ(inv.gpus[0].card, "card0");
  EXPECT_EQ(inv.gpus[0].identified_by, "kfd");
}

TEST(InventoryTest, DisagreeingIdsAreReported) {
  TestTree t;
  AddCard(t, 0, "0000:03:00.0", "1002:744C", 128);
  AddNode(t, 1, "simd_count 192\ngfx_target_version 110000\ndevice_id 4660\nlocation_id 768\ndomain 0\n");
  Inventory inv = DetectInventoryTree(t);
  ASSERT_EQ(inv.gpus.size(), 1u);
  EXPECT_EQ(inv.gpus[0].pci_id, "1002:744c");
  ASSERT_EQ(inv.findings.size(), 1u);
  EXPECT_EQ(inv.findings[0].id, "detect.id-mismatch");
  EXPECT_NE(inv.findings[0].what.find("1002:1234"), std::string::npos);
}

TEST(InventoryTest, PartitionsOfACardShareThePhysicalId) {
  TestTree t;
  AddCard(t, 1, "0000:05:00.0", "1002:74A1", 128);
  for (int p = 0; p < 4; ++p)  // CPX: partition number in the function bits of location_id
    AddNode(t, 2 + p,
            fmt::format("simd_count 152\ngfx_target_version 90402\nvendor_id 4098\ndevice_id 29857\n"
                        "location_id {}\ndomain 0\ndrm_render_minor {}\nunique_id 77\n",
                        1280 + p, 128 + p));
  Inventory inv = DetectInventoryTree(t);
  ASSERT_EQ(inv.gpus.size(), 4u);
  std::set<std::string> physical;
  for (const Gpu& g : inv.gpus) physical.insert(g.physical_id);
  EXPECT_EQ(physical, std::set<std::string>{"0000:05:00.0"});
  EXPECT_EQ(inv.gpus[0].card, "card1");
  EXPECT_FALSE(inv.gpus[1].card);
  EXPECT_EQ(inv.gpus[3].id, "0000:05:00.3");
  EXPECT_EQ(inv.gpus[3].render_node, "renderD131");
}

TEST(InventoryTest, DistinctUniqueIdsAreDistinctGpus) {
  TestTree t;
  AddNode(t, 1, "simd_count 4\ngfx_target_version 90010\nlocation_id 768\ndomain 0\nunique_id 1\n");
  AddNode(t, 2, "simd_count 4\ngfx_target_version 90010\nlocation_id 1024\ndomain 0\nunique_id 2\n");
  Inventory inv = DetectInventoryTree(t);
  ASSERT_EQ(inv.gpus.size(), 2u);
  EXPECT_NE(inv.gpus[0].physical_id, inv.gpus[1].physical_id);
}

TEST(InventoryTest, KfdHeapIsVramOnlyOnADgpu) {
  TestTree t;
  // gfx1103 is APU-only: its KFD heap is system memory, not VRAM.
  AddNode(t, 1, "simd_count 24\ngfx_target_version 110003\nlocation_id 25600\ndomain 0\n");
  t.Write("sys/class/kfd/kfd/topology/nodes/1/mem_banks/0/properties", "heap_type 1\nsize_in_bytes 31433977856\n");
  // gfx90a is dGPU-only: the heap is HBM.
  AddNode(t, 2, "simd_count 416\ngfx_target_version 90010\nlocation_id 768\ndomain 0\n");
  t.Write("sys/class/kfd/kfd/topology/nodes/2/mem_banks/0/properties", "heap_type 1\nsize_in_bytes 68702699520\n");
  Inventory inv = DetectInventoryTree(t);
  ASSERT_EQ(inv.gpus.size(), 2u);
  const Gpu& mi210 = inv.gpus[0].kfd_node == 2 ? inv.gpus[0] : inv.gpus[1];
  const Gpu& apu = inv.gpus[0].kfd_node == 1 ? inv.gpus[0] : inv.gpus[1];
  EXPECT_EQ(mi210.vram_bytes, 68702699520u);
  EXPECT_FALSE(apu.vram_bytes);
}

TEST(InventoryTest, CpuNodesAreNotGpus) {
  TestTree t;
  t.Write("sys/class/kfd/kfd/topology/nodes/0/properties", "cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\n");
  t.Write("sys/class/kfd/kfd/topology/nodes/0/gpu_id", "0\n");
  EXPECT_TRUE(DetectInventoryTree(t).gpus.empty());
}

}  // namespace
}  // namespace rocmtune::detect
