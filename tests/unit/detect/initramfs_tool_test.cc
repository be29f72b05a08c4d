// The initramfs tool table (detect/initramfs_tool.h): one row per tool that detection, planning
// (boot/initramfs.cc) and the image hint (boot/boot_image.cc) all read.
#include "detect/initramfs_tool.h"

#include <set>

#include <gtest/gtest.h>

#include "boot/initramfs.h"
#include "detect/boot_setup.h"
#include "knowledge/catalog.h"
#include "test_tree.h"

namespace rocmtune::detect {
namespace {

TEST(InitramfsToolTable, NamesRoundTripAndEveryInitramfsRegeneratorHasOneRow) {
  std::set<plan::Regenerator> seen;
  for (const InitramfsToolRow& row : InitramfsTools()) {
    EXPECT_EQ(ParseInitramfsKind(InitramfsKindName(row.kind)), row.kind) << row.name;
    EXPECT_EQ(plan::Row(row.regenerator).backend, plan::BackendId::kInitramfs) << row.name;
    EXPECT_TRUE(seen.insert(row.regenerator).second) << row.name << " shares its regenerator";
  }
  for (const plan::RegeneratorRow& r : plan::Regenerators()) {
    if (r.backend == plan::BackendId::kInitramfs) {
      EXPECT_TRUE(seen.count(r.id)) << r.name << " has no tool row";
    }
  }
  EXPECT_FALSE(ParseInitramfsKind("mkinitrd"));
  EXPECT_FALSE(ParseInitramfsKind("Dracut"));
}

// Each tool is detected from either of its files, and the plan runs the row's program and
// arguments: what the helper's allow-list takes (helper/regenerator_rules.cc ArgsRules).
TEST(InitramfsToolTable, DetectedFromEvidenceAndRegeneratedAsTheRowSays) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> kExpected = {
      {"usr/sbin/update-initramfs", {"update-initramfs", "-u", "-k", "all"}},
      {"etc/initramfs-tools/initramfs.conf", {"update-initramfs", "-u", "-k", "all"}},
      {"usr/bin/dracut", {"dracut", "--force", "--regenerate-all"}},
      {"etc/mkinitcpio.conf", {"mkinitcpio", "-P"}},
      {"etc/booster.yaml", {"booster", "build", "--force"}},
  };
  for (const auto& [evidence, argv] : kExpected) {
    testing::TestTree tree;
    tree.Write(evidence, "");
    auto root = sys::Root::Open(tree.path());
    ASSERT_TRUE(root);
    Inventory inventory;
    inventory.system.boot = DetectBootSetup(*root);
    ASSERT_TRUE(inventory.system.boot.initramfs) << evidence;
    EXPECT_EQ(inventory.system.boot.initramfs_evidence, std::vector<std::string>{evidence});
    boot::BootContext ctx{*root, inventory, knowledge::Catalog::Builtin()};
    auto tool = boot::FindInitramfsTool(ctx);
    ASSERT_TRUE(tool) << evidence;
    EXPECT_EQ(tool->argv, argv) << evidence;
    EXPECT_FALSE(tool->has_amdgpu) << evidence;
  }
  testing::TestTree none;
  auto root = sys::Root::Open(none.path());
  ASSERT_TRUE(root);
  EXPECT_FALSE(DetectBootSetup(*root).initramfs);
}

// mkinitcpio: MODULES with amdgpu, else the kms hook; a commented line proves nothing.
TEST(InitramfsToolTable, AmdgpuProofsInTableOrder) {
  const std::vector<std::pair<std::string, std::string>> kCases = {
      {"MODULES=(amdgpu)\nHOOKS=(base kms)\n", "etc/mkinitcpio.conf MODULES has amdgpu"},
      {"MODULES=()\nHOOKS=(base kms)\n", "etc/mkinitcpio.conf HOOKS has kms (GPU drivers in the image)"},
      {"# MODULES=(amdgpu) kms\nMODULES=()\n", ""},
  };
  for (const auto& [conf, evidence] : kCases) {
    testing::TestTree tree;
    tree.Write("etc/mkinitcpio.conf", conf);
    auto root = sys::Root::Open(tree.path());
    ASSERT_TRUE(root);
    Inventory inventory;
    inventory.system.boot = DetectBootSetup(*root);
    boot::BootContext ctx{*root, inventory, knowledge::Catalog::Builtin()};
    auto tool = boot::FindInitramfsTool(ctx);
    ASSERT_TRUE(tool);
    EXPECT_EQ(tool->has_amdgpu.value_or(false), !evidence.empty()) << conf;
    EXPECT_EQ(tool->evidence, evidence) << conf;
  }
}

}  // namespace
}  // namespace rocmtune::detect
