#include "detect/system_facts.h"

#include <gtest/gtest.h>

#include "test_tree.h"

namespace rocmtune::detect {
namespace {

using testing::TestTree;

TEST(OsReleaseTest, QuotesAndEscapes) {
  OsRelease os = ParseOsRelease(
      "# comment\nNAME=\"Ubuntu\"\nID=ubuntu\nVERSION_ID='24.04'\nPRETTY_NAME=\"Ubuntu \\\"Noble\\\" 24.04\"\n");
  EXPECT_EQ(os.id, "ubuntu");
  EXPECT_EQ(os.version_id, "24.04");
  EXPECT_EQ(os.pretty_name, "Ubuntu \"Noble\" 24.04");
}

TEST(OsReleaseTest, MissingAndEmptyKeysStayUnknown) {
  OsRelease os = ParseOsRelease("NAME=Foo\nID=\n");
  EXPECT_FALSE(os.id);
  EXPECT_FALSE(os.version_id);
}

TEST(SystemFactsTest, ReadsModulesRocmAndIommu) {
  TestTree t;
  t.Write("proc/sys/kernel/osrelease", "6.8.0-45-generic\n");
  t.Write("proc/cmdline", "BOOT_IMAGE=/vmlinuz ro quiet iommu=pt\n");
  t.Write("usr/lib/os-release", "ID=debian\nVERSION_ID=\"12\"\n");  // fallback location
  t.Write("opt/rocm/.info/version", "6.2.4-120\n");
  t.Write("sys/module/amdgpu/parameters/noretry", "-1\n");
  t.Write("sys/module/amdgpu/parameters/ppfeaturemask", "0xfff7bfff\n");
  t.Write("sys/module/ttm/parameters/pages_limit", "4194304\n");
  t.Mkdir("sys/class/iommu/ivhd0");
  auto root = sys::Root::Open(t.path());
  ASSERT_TRUE(root);
  std::vector<Finding> findings;
  SystemFacts f = DetectSystemFacts(*root, findings);
  EXPECT_EQ(f.kernel, "6.8.0-45-generic");
  EXPECT_EQ(f.os.id, "debian");
  EXPECT_EQ(f.rocm_version, "6.2.4");
  EXPECT_TRUE(f.amdgpu.loaded);
  EXPECT_EQ(f.amdgpu.parameters.at("noretry"), "-1");
  EXPECT_EQ(f.amdgpu.parameters.at("ppfeaturemask"), "0xfff7bfff");
  EXPECT_EQ(f.ttm.parameters.at("pages_limit"), "4194304");
  EXPECT_EQ(f.iommu.enabled, true);
  EXPECT_EQ(f.iommu.mode, "passthrough");
  EXPECT_TRUE(findings.empty());
}

TEST(SystemFactsTest, IommuOffOnCommandLineWins) {
  TestTree t;
  t.Write("proc/cmdline", "ro amd_iommu=off\n");
  t.Mkdir("sys/class/iommu/ivhd0");
  auto root = sys::Root::Open(t.path());
  ASSERT_TRUE(root);
  std::vector<Finding> findings;
  SystemFacts f = DetectSystemFacts(*root, findings);
  EXPECT_EQ(f.iommu.mode, "off");
  EXPECT_NE(f.iommu.evidence.find("amd_iommu=off"), std::string::npos);
}

TEST(SystemFactsTest, NothingThereMeansUnknownNotFalse) {
  TestTree t;
  auto root = sys::Root::Open(t.path());
  ASSERT_TRUE(root);
  std::vector<Finding> findings;
  SystemFacts f = DetectSystemFacts(*root, findings);
  EXPECT_FALSE(f.kernel);
  EXPECT_FALSE(f.cmdline);
  EXPECT_FALSE(f.rocm_version);
  EXPECT_FALSE(f.iommu.enabled);
  EXPECT_FALSE(f.iommu.mode);
  EXPECT_FALSE(f.amdgpu.loaded);
}

}  // namespace
}  // namespace rocmtune::detect
